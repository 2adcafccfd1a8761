// autocannon ships no types; this is the part of its API the bench uses.
declare module 'autocannon' {
  namespace autocannon {
    interface Request {
      method?: string;
      path?: string;
      headers?: Record<string, string>;
      body?: string;
      /** the request to send next (context: the connection's own object), or null to start over */
      setupRequest?(req: Request, context: object): Request | null;
      onResponse?(status: number, body: string, context: object): void;
    }
    interface Options {
      url: string;
      connections?: number;
      headers?: Record<string, string>;
      duration?: number;
      /** requests in all, instead of a duration */
      amount?: number;
      requests?: Request[];
    }
    interface Result {
      latency: { p50: number; p99: number; max: number; mean: number };
      requests: { average: number; total: number };
      non2xx: number;
      errors: number;
      /** seconds the run took */
      duration: number;
    }
  }
  function autocannon(opts: autocannon.Options): Promise<autocannon.Result>;
  export default autocannon;
}
