import type { TextClipboard } from '../../src/main/clipboard/secret-clipboard';

/** A clipboard in memory, standing in for the system one; `text` is what a paste elsewhere would get. */
export class MemoryClipboard implements TextClipboard {
  text = '';

  async readText(): Promise<string> {
    return this.text;
  }

  async writeText(text: string): Promise<void> {
    this.text = text;
  }

  clear(): void {
    this.text = '';
  }
}
