/**
 * The editor's document model (Tiptap, ProseMirror, Yjs and y-prosemirror: some 60 modules), loaded
 * by the first request that edits a page or opens a collaborative document, not at start.
 */
import { lazily } from "../../lib/lazy.js";

/** Conversions between stored documents and the editor's (index.ts). */
export const editorModel = lazily(() => import("./index.js"));

/** Conversions between stored documents and Yjs states, in a worker thread when large (off-thread.ts). */
export const editorStates = lazily(() => import("./off-thread.js"));
