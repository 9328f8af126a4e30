/** Running turns of this process by id, so a Stop request can reach the turn's abort signal. */
const running = new Map<string, { controller: AbortController; tenantId: string; userId: string }>();

export function registerRunningTurn(
  turnId: string,
  owner: { tenantId: string; userId: string },
  controller: AbortController,
) {
  running.set(turnId, { controller, ...owner });
  return () => running.delete(turnId);
}

/** Stops the user's own running turn; false when it is not running here (finished, or on another instance). */
export function stopRunningTurn(turnId: string, owner: { tenantId: string; userId: string }): boolean {
  const turn = running.get(turnId);
  if (!turn || turn.tenantId !== owner.tenantId || turn.userId !== owner.userId) return false;
  turn.controller.abort(new Error("stopped by the user"));
  return true;
}
