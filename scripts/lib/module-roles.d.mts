export const ROLES: readonly string[];
export function roleOf(fileName: string): string | undefined;
export function moduleFiles(root?: string): string[];
export const APP_ROLES: readonly string[];
export function appFilesWithoutRole(root?: string): string[];
