/** Webhook subscriptions of a crm (docs/webhooks.md): create, read, change, delete, rotate, test, deliveries. */
import type { Deps } from '../context.js';
import { DomainError, notFound } from '../errors.js';
import type { Queryable } from '../storage/db.js';
import { assertDestination } from '../net/destination.js';
import { EVENT_TYPES, eventsWritten, type EventType } from './events.js';
import { newSecret } from './signing.js';

export interface WebhookView {
  id: string;
  url: string;
  /** every type when the subscription takes all */
  events: EventType[];
  description: string | null;
  enabled: boolean;
  createdAt: string;
}

export interface WebhookInput {
  url: string;
  /** omitted or null: every type */
  events?: EventType[] | null;
  description?: string | null;
}

export interface WebhookChanges extends Partial<WebhookInput> {
  enabled?: boolean;
}

export interface DeliveryView {
  eventId: string;
  type: EventType;
  attempt: number;
  status: 'PENDING' | 'SUCCEEDED' | 'FAILED';
  responseStatus: number | null;
  error: string | null;
  at: string;
  nextAttemptAt: string | null;
}

interface SubscriptionRow {
  id: string;
  url: string;
  events: EventType[] | null;
  description: string | null;
  enabled: boolean;
  secret: string;
  created_at: Date;
}

/** How long deliveries are signed with the secret a rotation replaced as well. */
const ROTATION_OVERLAP = '24 hours';

const view = (r: SubscriptionRow): WebhookView => ({
  id: r.id,
  url: r.url,
  events: r.events ?? [...EVENT_TYPES],
  description: r.description,
  enabled: r.enabled,
  createdAt: r.created_at.toISOString(),
});

const withSecret = (r: SubscriptionRow) => ({ ...view(r), secret: r.secret });

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const webhookNotFound = (id: string) => notFound(`no webhook ${id} found`);

/** The crm's subscription, or 404 (also for another crm's id: nothing of theirs is visible). */
async function requireSubscription(db: Queryable, crmId: string, id: string, lock = false): Promise<SubscriptionRow> {
  if (!UUID.test(id)) throw webhookNotFound(id);
  const [row] = await db.query<SubscriptionRow>(
    `SELECT * FROM webhook_subscriptions WHERE id = $1 AND crm_id = $2${lock ? ' FOR UPDATE' : ''}`,
    [id, crmId],
  );
  if (!row) throw webhookNotFound(id);
  return row;
}

/** Distinct types, or null for all (the schema refuses an empty list: omit it for every type). */
function eventFilter(events: EventType[] | null | undefined): EventType[] | null {
  if (events === undefined || events === null) return null;
  return [...new Set(events)];
}

export async function createWebhook(deps: Deps, crmId: string, input: WebhookInput) {
  const events = eventFilter(input.events);
  await assertDestination(input.url, deps.config.webhookAllowPrivateNetworks, 'body.url');
  const [row] = await deps.db.query<SubscriptionRow>(
    `INSERT INTO webhook_subscriptions (crm_id, url, events, description, secret) VALUES ($1, $2, $3, $4, $5)
       RETURNING *`,
    [crmId, input.url, events, input.description ?? null, newSecret()],
  );
  return withSecret(row);
}

export async function listWebhooks(deps: Deps, crmId: string): Promise<WebhookView[]> {
  const rows = await deps.db.query<SubscriptionRow>(
    'SELECT * FROM webhook_subscriptions WHERE crm_id = $1 ORDER BY created_at, id',
    [crmId],
  );
  return rows.map(view);
}

export async function getWebhook(deps: Deps, crmId: string, id: string): Promise<WebhookView> {
  return view(await requireSubscription(deps.db, crmId, id));
}

/** PUT: the given fields only; null events means every type again, null description clears it. */
export async function updateWebhook(
  deps: Deps,
  crmId: string,
  id: string,
  changes: WebhookChanges,
): Promise<WebhookView> {
  const events = changes.events === undefined ? undefined : eventFilter(changes.events);
  if (changes.url !== undefined)
    await assertDestination(changes.url, deps.config.webhookAllowPrivateNetworks, 'body.url');
  await requireSubscription(deps.db, crmId, id);
  const [row] = await deps.db.query<SubscriptionRow>(
    `UPDATE webhook_subscriptions
        SET url = COALESCE($3, url), events = CASE WHEN $4 THEN $5::text[] ELSE events END,
            description = CASE WHEN $6 THEN $7 ELSE description END, enabled = COALESCE($8, enabled), updated_at = now()
      WHERE id = $1 AND crm_id = $2 RETURNING *`,
    [
      id,
      crmId,
      changes.url ?? null,
      events !== undefined,
      events ?? null,
      changes.description !== undefined,
      changes.description ?? null,
      changes.enabled ?? null,
    ],
  );
  if (!row) throw webhookNotFound(id);
  return view(row);
}

/** Deletes the subscription with its deliveries; nothing more is sent to it. */
export async function deleteWebhook(deps: Deps, crmId: string, id: string): Promise<void> {
  await requireSubscription(deps.db, crmId, id);
  await deps.db.query('DELETE FROM webhook_subscriptions WHERE id = $1 AND crm_id = $2', [id, crmId]);
}

/** A new secret; for 24 h every delivery is signed with the old one too. */
export async function rotateSecret(deps: Deps, crmId: string, id: string) {
  return deps.db.transaction(async (tx) => {
    const current = await requireSubscription(tx, crmId, id, true);
    const [row] = await tx.query<SubscriptionRow>(
      `UPDATE webhook_subscriptions SET previous_secret = $3,
         previous_secret_until = now() + interval '${ROTATION_OVERLAP}', secret = $4, updated_at = now()
        WHERE id = $1 AND crm_id = $2 RETURNING *`,
      [id, crmId, current.secret, newSecret()],
    );
    return withSecret(row);
  });
}

/** Queues a webhook.test event for this subscription alone, whatever types it takes. */
export async function sendTestEvent(deps: Deps, crmId: string, id: string): Promise<{ eventId: string }> {
  const sub = await requireSubscription(deps.db, crmId, id);
  const data = { crmId, webhookId: sub.id, message: 'This is a test event.' };
  const [{ id: eventId }] = await deps.db.query<{ id: string }>(
    `SELECT webhook_enqueue($1, 'webhook.test', $2, $3) AS id`,
    [crmId, JSON.stringify(data), sub.id],
  );
  eventsWritten();
  return { eventId };
}

interface DeliveryRow {
  event_id: string;
  type: EventType;
  attempts: number;
  status: DeliveryView['status'];
  response_status: number | null;
  last_error: string | null;
  last_attempt_at: Date | null;
  next_attempt_at: Date;
  created_at: Date;
}

/** The subscription's deliveries, newest event first, one row per event with its attempts so far. */
export async function listDeliveries(deps: Deps, crmId: string, id: string, limit: number): Promise<DeliveryView[]> {
  await requireSubscription(deps.db, crmId, id);
  const rows = await deps.db.query<DeliveryRow>(
    `SELECT d.event_id, e.type, d.attempts, d.status, d.response_status, d.last_error, d.last_attempt_at,
       d.next_attempt_at, d.created_at
       FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
      WHERE d.subscription_id = $1 ORDER BY d.seq DESC LIMIT $2`,
    [id, limit],
  );
  return rows.map((r) => ({
    eventId: r.event_id,
    type: r.type,
    attempt: r.attempts,
    status: r.status,
    responseStatus: r.response_status,
    error: r.last_error,
    at: (r.last_attempt_at ?? r.created_at).toISOString(),
    nextAttemptAt: r.status === 'PENDING' ? r.next_attempt_at.toISOString() : null,
  }));
}

/** Sends a FAILED delivery once more (one attempt); 404 when there is none, 409 when it is not FAILED. */
export async function retryDelivery(deps: Deps, crmId: string, id: string, eventId: string): Promise<void> {
  await requireSubscription(deps.db, crmId, id);
  if (!UUID.test(eventId)) throw notFound(`no delivery of event ${eventId} found`);
  const [row] = await deps.db.query<{ status: string; retried: boolean }>(
    `WITH d AS (SELECT status FROM webhook_deliveries WHERE subscription_id = $1 AND event_id = $2),
          u AS (UPDATE webhook_deliveries SET status = 'PENDING', last_chance = true, next_attempt_at = now()
                 WHERE subscription_id = $1 AND event_id = $2 AND status = 'FAILED' RETURNING 1)
     SELECT d.status, EXISTS (SELECT 1 FROM u) AS retried FROM d`,
    [id, eventId],
  );
  if (!row) throw notFound(`no delivery of event ${eventId} found`);
  if (!row.retried)
    throw new DomainError(
      'CONFLICT',
      `the delivery of event ${eventId} is ${row.status}; only a FAILED one can be retried`,
    );
  eventsWritten();
}
