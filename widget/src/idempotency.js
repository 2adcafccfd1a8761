/**
 * Idempotency-Key (docs/lifecycle.md): a new key for every attempt, except that the same request
 * sent again after a network error (its answer may have been lost) reuses its key, so the service
 * answers it once and a retry can never reserve or book twice.
 */
export function idempotencyKeys() {
  /** @type {{ url: string, body: string | undefined, key: string } | null} */
  let lost = null;
  const newKey = () => {
    if (crypto.randomUUID) return crypto.randomUUID();
    return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');
  };
  return {
    /** @param {string} url @param {string | undefined} body */
    keyFor: (url, body) => (lost && lost.url === url && lost.body === body ? lost : { url, body, key: newKey() }),
    /** @param {{ url: string, body: string | undefined, key: string }} attempt */
    failed: (attempt) => (lost = attempt),
    answered: () => (lost = null),
  };
}
