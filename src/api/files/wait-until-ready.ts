import { APIUserAbortError } from '../../core/errors.js';
import { FileProcessingError } from '../errors.js';
import type { FileObject, WaitUntilReadyOptions } from '../types/files.js';

/** Statuses after which waiting longer cannot help. */
const failedStatuses = new Set(['failed', 'error', 'cancelled', 'canceled', 'expired']);

/**
 * Polls `retrieve` until the file's status is `success`. The service says `processed` while it is still
 * parsing, so that and any other unknown status mean "keep waiting" until `timeout`.
 */
export async function waitUntilReady(
  fileId: string,
  retrieve: (signal: AbortSignal) => Promise<FileObject>,
  { timeout = 120_000, pollInterval = 500, signal }: WaitUntilReadyOptions = {},
): Promise<FileObject> {
  const deadline = Date.now() + timeout;
  const controller = new AbortController();
  const onAbort = () => controller.abort(signal?.reason);
  signal?.addEventListener('abort', onAbort, { once: true });
  if (signal?.aborted) onAbort();
  let last: FileObject | undefined;
  try {
    for (;;) {
      if (controller.signal.aborted) throw new APIUserAbortError('Waiting for the file was aborted.');
      last = await retrieve(controller.signal);
      const status = last.status ?? '';
      if (status === 'success') return last;
      if (failedStatuses.has(status)) {
        throw new FileProcessingError(fileId, 'failed', last, `the service reports status "${status}"`);
      }
      const remaining = deadline - Date.now();
      if (remaining <= 0) {
        throw new FileProcessingError(
          fileId,
          'timeout',
          last,
          `status still "${status || 'unknown'}" after ${timeout} ms (waiting for "success")`,
        );
      }
      await sleep(Math.min(pollInterval, remaining), controller.signal);
    }
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new APIUserAbortError('Waiting for the file was aborted.'));
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
