import { pathToFileURL } from 'node:url';

export interface RendererLocation {
  /** Absolute path of the built renderer's index.html (out/renderer/index.html). */
  rendererIndexPath: string;
  /** The electron-vite dev server (ELECTRON_RENDERER_URL); pass it only when the app is not packaged. */
  devServerUrl?: string | undefined;
}

/**
 * Builds the check that an IPC request comes from the app's own renderer: the exact file:// URL of the built
 * index.html (any #fragment allowed, for client-side routes), or, in development, a page of the dev server's origin.
 * Anything else (another file, a remote page, a query string, an unparsable URL) is refused.
 */
export function createRendererUrlCheck({ rendererIndexPath, devServerUrl }: RendererLocation): (url: string) => boolean {
  const indexUrl = pathToFileURL(rendererIndexPath).href;
  const devOrigin = devServerUrl === undefined ? undefined : new URL(devServerUrl).origin;
  return (url) => {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return false;
    }
    if (parsed.protocol === 'file:') {
      parsed.hash = '';
      return parsed.href === indexUrl;
    }
    return devOrigin !== undefined && devOrigin !== 'null' && parsed.origin === devOrigin;
  };
}
