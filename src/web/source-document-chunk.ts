import type { DocumentSource } from '../tools/tool.js';

/** The `source-document` chunk (and restored part) of a document an answer drew on. */
export function sourceDocumentChunk(source: DocumentSource) {
  return {
    type: 'source-document' as const,
    sourceId: source.id,
    mediaType: mediaTypeOf(source.title),
    title: source.title,
    filename: source.title,
    providerMetadata: { svc: { fileId: source.fileId } },
  };
}

const MEDIA_TYPES: Record<string, string> = {
  md: 'text/markdown',
  txt: 'text/plain',
  csv: 'text/csv',
  html: 'text/html',
  xml: 'application/xml',
  pdf: 'application/pdf',
  doc: 'application/msword',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  gif: 'image/gif',
};

/** The media type a `source-document` part needs, from the file name (the service does not send one). */
function mediaTypeOf(fileName: string): string {
  const extension = /\.([a-z0-9]+)$/i.exec(fileName)?.[1]?.toLowerCase() ?? '';
  return MEDIA_TYPES[extension] ?? 'application/octet-stream';
}
