// A configured secret that cannot leak by accident: logging, inspecting, serialising or
// interpolating it shows "[redacted]", and the value comes out only through reveal().
export class Secret {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  /** The value itself, for the one place that needs it (a signature). */
  reveal(): string {
    return this.#value;
  }

  toString(): string {
    return '[redacted]';
  }

  toJSON(): string {
    return '[redacted]';
  }
}
