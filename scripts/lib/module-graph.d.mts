export interface ImportSite {
  file: string;
  line: number;
  kind: "static" | "type" | "dynamic";
}
export interface FamilyEdge {
  from: string;
  to: string;
  sites: ImportSite[];
}
export const repoRoot: string;
export function families(root?: string): string[];
export function importsOf(fileName: string, text: string): { specifier: string; line: number; kind: ImportSite["kind"] }[];
export function moduleGraph(root?: string): Map<string, FamilyEdge>;
export function edgeKind(edge: FamilyEdge): ImportSite["kind"];
export function elementaryCycles(edges: Map<string, FamilyEdge>): string[];
