export const DEFAULT_MAX_ATTEMPTS: number;
export interface JobKindInfo {
  kind: string;
  file: string;
  line: number;
  maxAttempts: number;
  everyMs: number | undefined;
}
export function jobKinds(root?: string): JobKindInfo[];
