export function moduleGraphSection(root?: string): string;
export function jobsSection(root?: string): string;
export function replaceSection(text: string, name: string, content: string): string;
export function generate(text: string, root?: string): string;
