import { errorBody, errorTypeForStatus, invalidParams } from './errors.js';
import { checkRateLimit, RateLimitWindow } from './rate-limit-window.js';
import type { EmulatorFault } from './types.js';

const compactKeys: Record<string, (fault: EmulatorFault, value: string) => void> = {
  status: (f, v) => {
    f.status = Number(v);
  },
  'retry-after': (f, v) => {
    f.headers = { ...f.headers, 'Retry-After': v };
  },
  latency: (f, v) => {
    f.latencyMs = Number(v);
  },
  cut: (f, v) => {
    f.cutAfterBytes = Number(v);
  },
  malformed: (f, v) => {
    f.malformedChunk = v !== 'false';
  },
  drip: (f, v) => {
    f.dripMs = Number(v);
  },
  stall: (f, v) => {
    f.stallAfterBytes = Number(v);
  },
  'not-event-stream': (f, v) => {
    f.notEventStream = v !== 'false';
  },
  'echo-key': (f, v) => {
    f.echoKey = v !== 'false';
  },
  times: (f, v) => {
    f.times = Number(v);
  },
};

/**
 * Parses the `x-emulator-fault` header: JSON (`{"status":503,"headers":{"Retry-After":"1"}}`) or the compact
 * form `status=503;retry-after=1;latency=200;cut=120;stall=80;malformed;not-event-stream;echo-key;drip=20;times=2;
 * message=Busy;type=overloaded`.
 */
export function parseFaultHeader(value: string): EmulatorFault {
  const text = value.trim();
  let fault: EmulatorFault;
  if (text.startsWith('{')) {
    try {
      fault = JSON.parse(text) as EmulatorFault;
    } catch {
      throw invalidParams('x-emulator-fault: not valid JSON');
    }
  } else {
    fault = {};
    const error: { message?: string; type?: string } = {};
    for (const part of text.split(/[;,]/)) {
      const [rawKey = '', ...rest] = part.split('=');
      const key = rawKey.trim().toLowerCase();
      if (!key) continue;
      if (key === 'message' || key === 'type') {
        error[key] = rest.join('=').trim();
        continue;
      }
      const setter = compactKeys[key];
      if (!setter) throw invalidParams(`x-emulator-fault: unknown key '${key}'`);
      setter(fault, rest.length > 0 ? rest.join('=').trim() : 'true');
    }
    if (error.message !== undefined || error.type !== undefined) {
      const status = fault.status ?? 500;
      fault.body = errorBody(error.message ?? 'Emulated fault', error.type ?? errorTypeForStatus(status));
    }
  }
  checkFault(fault, 'x-emulator-fault');
  return fault;
}

/** Rejects faults with non-numeric or out-of-range fields. */
export function checkFault(fault: EmulatorFault, where: string): void {
  if (typeof fault !== 'object' || fault === null) throw invalidParams(`${where}: must be an object`);
  if (
    fault.status !== undefined &&
    (!Number.isInteger(fault.status) || fault.status < 100 || fault.status > 599)
  ) {
    throw invalidParams(`${where}.status: must be an HTTP status between 100 and 599`);
  }
  for (const key of ['latencyMs', 'cutAfterBytes', 'stallAfterBytes', 'dripMs', 'times'] as const) {
    const value = fault[key];
    if (value !== undefined && (!Number.isFinite(value) || value < 0)) {
      throw invalidParams(`${where}.${key}: must be a non-negative number`);
    }
  }
  if (fault.rateLimit !== undefined) checkRateLimit(fault.rateLimit, `${where}.rateLimit`);
}

/** Runtime fault list: matches requests and counts down `times`. */
export class FaultBook {
  private entries: Array<{ fault: EmulatorFault; left: number; window: RateLimitWindow | undefined }> = [];
  /** Header faults with `times`, counted per exact header value so retries of one request see it wear off. */
  private headerCounts = new Map<string, number>();

  constructor(faults: EmulatorFault[] = []) {
    this.set(faults);
  }

  /** Replaces the configured faults. */
  set(faults: EmulatorFault[]): void {
    for (const [i, fault] of faults.entries()) checkFault(fault, `faults[${i}]`);
    this.entries = faults.map((fault) => ({
      fault,
      left: fault.times ?? Number.POSITIVE_INFINITY,
      window: fault.rateLimit && new RateLimitWindow(fault.rateLimit),
    }));
    this.headerCounts.clear();
  }

  /**
   * The fault for a request: its header wins, else the first configured fault that matches (`body` is the
   * parsed JSON body, for `model`); a `rateLimit` fault matches only the requests over its budget.
   */
  pick(method: string, path: string, header: string | undefined, body?: unknown): EmulatorFault | undefined {
    if (header) {
      const fault = parseFaultHeader(header);
      if (fault.times === undefined) return fault;
      const used = this.headerCounts.get(header) ?? 0;
      this.headerCounts.set(header, used + 1);
      return used < fault.times ? fault : undefined;
    }
    for (const entry of this.entries) {
      if (entry.left <= 0 || !matches(entry.fault, method, path, body)) continue;
      if (entry.window) {
        const limited = entry.window.admit(body);
        if (limited) return limited;
        continue;
      }
      entry.left -= 1;
      return entry.fault;
    }
    return undefined;
  }
}

function matches(fault: EmulatorFault, method: string, path: string, body: unknown): boolean {
  if (fault.method && fault.method.toUpperCase() !== method) return false;
  if (fault.model !== undefined && (body as { model?: unknown } | undefined)?.model !== fault.model)
    return false;
  if (fault.path === undefined) return true;
  return typeof fault.path === 'string' ? path.includes(fault.path) : fault.path.test(path);
}

/** Resolves after `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
