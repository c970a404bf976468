/** What the CLI prints on stdout: JSON in which the service's text cannot steer the terminal (jsonText). */
import { jsonText } from '../../shared/visible-text';

export function print(value: unknown): void {
  process.stdout.write(`${jsonText(value)}\n`);
}

export function printUnlessEmpty(value: unknown): void {
  if (value !== undefined) print(value);
}
