/** Governance writes that failed in this process (shown on /api/health); the replies they belonged to went out. */
export const governanceFailures = { ledger: 0, audit: 0, conversation: 0, pipeline: 0 };

export function countFailure(kind: keyof typeof governanceFailures): void {
  governanceFailures[kind] += 1;
}
