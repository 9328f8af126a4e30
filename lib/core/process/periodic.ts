import { log } from "./log";

/**
 * A background service that runs `pass` every `everyMs`: one pass at a time (a tick while one runs is skipped),
 * a failure logged under `name` and the next tick tried as usual, and `stop` waiting for the pass running.
 */
export function periodicService(name: string, everyMs: number, pass: () => Promise<void>) {
  let timer: ReturnType<typeof setInterval> | undefined;
  let running: Promise<void> | null = null;
  const tick = () => {
    if (running) return;
    running = pass()
      .catch((error: unknown) => log.error({ err: error }, `${name} failed`))
      .finally(() => {
        running = null;
      });
  };
  return {
    name,
    start() {
      if (timer) return;
      timer = setInterval(tick, everyMs);
      timer.unref();
    },
    async stop() {
      clearInterval(timer);
      timer = undefined;
      await running;
    },
  };
}
