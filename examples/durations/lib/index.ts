// tiny-duration: lengths of time as whole milliseconds, parsed from and printed as "1h 30m".

const UNITS = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1_000, ms: 1 } as const;

export type Unit = keyof typeof UNITS;

/** Thrown when a text is not a duration such as `1h 30m` or `45s`. */
export class DurationParseError extends Error {
  constructor(readonly input: string) {
    super(`not a duration: "${input}"`);
    this.name = 'DurationParseError';
  }
}

export class Duration {
  private constructor(
    /** The length in whole milliseconds, never negative. */
    readonly ms: number,
  ) {}

  /** A length in one unit: `Duration.of(90, 's')`. Rounded to the millisecond, never negative. */
  static of(amount: number, unit: Unit): Duration {
    return new Duration(Math.max(0, Math.round(amount * UNITS[unit])));
  }

  /** Reads `1h 30m`, `2d`, `45s`, `250ms` (parts in any order, spaces optional). */
  static parse(text: string): Duration {
    const parts = [...text.matchAll(/(\d+(?:\.\d+)?)\s*(ms|d|h|m|s)/g)];
    const rest = text.replace(/(\d+(?:\.\d+)?)\s*(ms|d|h|m|s)/g, '').trim();
    if (parts.length === 0 || rest !== '') throw new DurationParseError(text);
    return parts.reduce((sum, [, n, unit]) => sum.plus(Duration.of(Number(n), unit as Unit)), Duration.zero());
  }

  static zero(): Duration {
    return new Duration(0);
  }

  plus(other: Duration): Duration {
    return new Duration(this.ms + other.ms);
  }

  /** The time left after `other`, never below zero. */
  minus(other: Duration): Duration {
    return new Duration(Math.max(0, this.ms - other.ms));
  }

  times(factor: number): Duration {
    return new Duration(Math.max(0, Math.round(this.ms * factor)));
  }

  /** The length in a unit, as a fraction: `Duration.parse('90s').to('m')` is 1.5. */
  to(unit: Unit): number {
    return this.ms / UNITS[unit];
  }

  /** `1h 30m`; zero parts are left out, and zero is `0s`. `largest` caps how many parts are shown. */
  format(largest = 3): string {
    let left = this.ms;
    const parts: string[] = [];
    for (const [unit, size] of Object.entries(UNITS)) {
      const n = Math.floor(left / size);
      left -= n * size;
      if (n > 0 && parts.length < largest) parts.push(`${n}${unit}`);
    }
    return parts.length ? parts.join(' ') : '0s';
  }
}

/** Adds durations; an empty list is zero. */
export function total(durations: readonly Duration[]): Duration {
  return durations.reduce((sum, d) => sum.plus(d), Duration.zero());
}
