/**
 * Migrations are history (DESIGN 7.9): a migration on main never changes, and new ones take the
 * next free number. Numbers 002 and 008 are missing and 004 and 006 are used twice since before
 * this rule; 015 was a migration on main that was reverted (databases may have applied it). Those
 * names stay, as databases have applied them.
 */
import { describe, expect, it } from 'vitest';
import { listDefinitions, listMigrations } from '../../src/storage/migrate.js';

/** Every migration that has landed on main, with the SHA-256 of its content: add a new one here when it lands. */
const LANDED: [string, string][] = [
  ['001_initial', 'e533cd75d973572e3432557ffd861e1916e9bfacd9c5730031d955794297b132'],
  ['003_scheduling', '9dee37a3e5de19ba4497aa88977d1566709c82088bc9618a62b6cf5419a2c043'],
  ['004_public_appointments', 'c2c9c31be89f9c58b78ff6fb03856b1678105babed0e52cc093abd748c063e95'],
  ['004_public_listing', '927f0066b76c9eb61ff4bdd484ce538ea3c4f0854f42d56cbc007ab654c1296e'],
  ['005_hold_allowance_index', '4f4a22f9fb2b4832e05beaba8d5db9ec8e5b511821b650f32b0eab70d718d62b'],
  ['006_contention_free', 'd3fcfe310004900aa7788bdda8335b827692d276b32fb5fc91b9b1e40c1e0ca1'],
  ['006_public_booking', '21ae6771ca967f494f5c1ac2c488e12697ef15c6589c89985781b96a2c46bcd6'],
  ['007_feeds', '92ff997f12e06bef32cf3a706508eaea8e12cfcea495c79f977662195b31e8cb'],
  ['009_webhooks', '7c7bcc11ca7f3602314813365dbe81791bb2e421dc7dd037bd9e4d6db25de2cc'],
  ['010_lifecycle', '3251d9c21c0d7f31bd4569e6db41c64eb4922c99b02db0362e8d3f3419de7333'],
  ['011_live_participations_covering', '3ca7a003d270716f46e578c9de80504aa99450579e75f1af15f819268b3d2f0e'],
  ['012_listing_change_appointments', '131ad4e1e4820a926c7507457ef2258371cac86d3f0d1e1c1cd1cd6c2a2fecab'],
  ['013_live_participants', '78eba08f0650de107e857185ad29da55b145cb68927ef5a406554ac458cb8f46'],
  ['014_reminders_on_booking', 'cc66fab4ea117f1803955cf60959bbd878eb80b0a384f32ea3d2b02bb5509b8f'],
  ['016_freed_time', 'ca2b1ab2c616616027bcdb93a07b5531362bfdac1a1a244fc90220191a9ffba8'],
  ['017_ics_sequence', 'ae64ffabe7dfd40c35584b93682167ae851d86c0f5ed01dd1b30ebaa0dfdec91'],
  ['018_busy_times', 'd7c493e94037cead99b11b69943e07eb0201ebe8fe29ad4ae5e68513dbf53627'],
  ['019_booking_questions', '836968d9eea895e5c9053eba596efeab2c11681374f6e72019a7c0dad9c234e3'],
  ['020_consumer_data', '10263f829a715582ffebcbd5ba7595f84dc60ba259436e1d2a855630a8799fe4'],
  ['021_service_instances', '015f0d612a902747364eb10a72ef01d4cfa0c45bed3036a373bec7ba7eba2ff5'],
  ['022_no_instance_lease', '8219f082f2062a9ae8775f4a9ca9152b8cbdc9fc22ad47f5243182f654f319ad'],
  ['023_consumer_identity', 'e4e3a26da9dba6022e0ac08dc61e0e557213f3f7aaa26e5d7f0f16410ce6bbce'],
  ['024_availability_rules', 'c0822072686a11ffc68ad835332c9d86bae6bd6b1a5d3ddaa91239dcf1379bc4'],
  ['025_booking_limits', '73dcab6475d777b26ea312957ff6b8c416881cf08e3b7d0f75ce3786d39be1ee'],
  ['026_pools', '824e70cd678fe8cf408842eeccbd87f8331ee30e5dd1311d8f385072de074cff'],
  ['027_webhook_due_order', '0d73beb2ca5eb24af2995e416eec4be7a45f374fa9d4c603d8c17fbff4aa658e'],
  ['028_drop_duplicate_customer_index', 'a6898f119e0de4daa2aed95278a1a1fda614aa193973ca2791d1c05df0b2ecc4'],
];
/** Numbers used by a migration that is no longer among the files. */
const RETIRED = new Set([15]);
const LEGACY_DUPLICATES = new Set([4, 6]);

const numberOf = (version: string) => Number(version.split('_')[0]);

describe('migrations', () => {
  const files = listMigrations();

  it('that landed keep their names and contents', () => {
    const current = new Map(files.map((m) => [m.version, m.checksum]));
    for (const [version, checksum] of LANDED)
      expect({ version, checksum: current.get(version) }).toEqual({ version, checksum });
  });

  it('that are new take the next free numbers, one each, in order', () => {
    const landed = new Set(LANDED.map(([v]) => v));
    const lastLanded = Math.max(...LANDED.map(([v]) => numberOf(v)), ...RETIRED);
    const added = files.filter((m) => !landed.has(m.version)).map((m) => numberOf(m.version));
    expect(added).toEqual(added.map((_, i) => lastLanded + 1 + i));
  });

  it('use a number twice only where databases have applied both names already', () => {
    const seen = new Map<number, number>();
    for (const m of files) seen.set(numberOf(m.version), (seen.get(numberOf(m.version)) ?? 0) + 1);
    const twice = [...seen].filter(([, n]) => n > 1).map(([number]) => number);
    expect(twice.every((n) => LEGACY_DUPLICATES.has(n))).toBe(true);
    for (const n of RETIRED) expect(seen.has(n)).toBe(false);
  });

  it('define no SQL function or trigger from 016 on: those live in repeatable definitions', () => {
    for (const m of files.filter((f) => numberOf(f.version) >= 16)) {
      expect(m.sql, m.version).not.toMatch(/CREATE\s+(OR\s+REPLACE\s+)?(FUNCTION|TRIGGER|PROCEDURE)/i);
    }
  });
});

describe('repeatable definitions', () => {
  it('are one function (with its triggers) per file, named after it', () => {
    for (const d of listDefinitions()) {
      const functions = [...d.sql.matchAll(/CREATE\s+OR\s+REPLACE\s+FUNCTION\s+(\w+)/gi)].map((m) => m[1]);
      const expected = d.name
        .split('/')
        .pop()!
        .replace(/\.sql$/, '');
      expect({ file: d.name, functions }).toEqual({ file: d.name, functions: [expected] });
    }
  });

  it('define each function in one file only', () => {
    const where = new Map<string, string[]>();
    for (const d of listDefinitions()) {
      for (const m of d.sql.matchAll(/CREATE\s+OR\s+REPLACE\s+FUNCTION\s+(\w+)/gi))
        where.set(m[1], [...(where.get(m[1]) ?? []), d.name]);
    }
    expect([...where].filter(([, files]) => files.length > 1)).toEqual([]);
  });
});
