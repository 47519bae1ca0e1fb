/**
 * `work`, or a rejection once `ms` of real time pass without it settling: for probes (readiness,
 * a metrics scrape) that must answer while the database does not. The work itself goes on.
 */
export function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}
