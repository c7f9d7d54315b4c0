/** A writable that drops everything: where `--json` mode sends human-readable output. */
export const nullStream = { write: () => true } as unknown as NodeJS.WritableStream;
