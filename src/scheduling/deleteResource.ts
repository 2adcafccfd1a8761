import type { Deps } from '../context.js';
import { conflict, notFound } from '../errors.js';
import { requireProvider } from '../partners/providers.js';
import { resourceByReference } from '../offerings/resourceRepo.js';
import type { Queryable } from '../storage/db.js';
import { appointmentIsCurrentSql } from './capacity.js';
import { cancelParticipations } from './appointmentRemoval.js';

/** Live appointments of the resource that have not ended yet. */
const futureAppointments = (tx: Queryable, resourceId: string, now: Date) =>
  tx.query<{ id: string; reference: string }>(
    `SELECT id, reference FROM appointments
      WHERE resource_id = $1 AND end_at > $2 AND ${appointmentIsCurrentSql()} ORDER BY start_at`,
    [resourceId, now],
  );

/**
 * B6. With future appointments and no ignoreFutureAppointments: 409. With it, the future
 * appointments are archived, their participations CANCELED and every booked or requested
 * participant is mailed, all in this transaction. The resource row is then deleted for good;
 * its appointments remain (resource_id NULL) as history.
 */
export async function deleteResource(
  deps: Deps,
  crmId: string,
  providerRef: string,
  resourceRef: string,
  ignoreFutureAppointments: boolean,
): Promise<{ archivedAppointments: number }> {
  return deps.db.transaction(async (tx) => {
    const provider = await requireProvider(tx, crmId, providerRef);
    const resource = await resourceByReference(tx, provider.id, resourceRef);
    if (!resource) throw notFound(`no resource found for reference ${resourceRef}`);
    // The row this deletes; locked now, no appointment can be added to the resource while we decide
    // (an insert's foreign-key check waits for this lock).
    await tx.query('SELECT id FROM resources WHERE id = $1 FOR UPDATE', [resource.id]);
    const future = await futureAppointments(tx, resource.id, deps.clock.now());
    if (future.length > 0 && !ignoreFutureAppointments) {
      const shown = future
        .slice(0, 5)
        .map((a) => a.reference)
        .join(', ');
      throw conflict(
        `resource ${resourceRef} has ${future.length} future appointment(s) (${shown}); ` +
          `delete with ignoreFutureAppointments=true to archive them and inform the participants`,
      );
    }
    for (const appointment of future) {
      await tx.query('UPDATE appointments SET archived = true, updated_at = now() WHERE id = $1', [appointment.id]);
      await cancelParticipations(tx, deps, appointment.id, 'resource-deleted-cancellation', null);
    }
    await tx.query('DELETE FROM resources WHERE id = $1', [resource.id]);
    return { archivedAppointments: future.length };
  });
}
