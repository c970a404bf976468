/**
 * JSON-RPC to the Ethereum node Settings names for a chain, bounded so that a slow or hostile node costs a simulation
 * at most its bounds: each call times out, an answer is read only up to a byte cap, redirects are refused, and one
 * simulation makes a bounded number of calls. Every answer is checked against the shape its method promises.
 */
import { z } from 'zod';
import { QkError } from '../../shared/errors';

export interface NodeRpcLimits {
  /** One call's time, from sending to the last byte of its answer. */
  callTimeoutMs: number;
  /** The most bytes one answer may hold. */
  maxAnswerBytes: number;
  /** The most calls one simulation may make (each account, code and storage slot read is one). */
  maxCalls: number;
}

export const DEFAULT_NODE_LIMITS: NodeRpcLimits = { callTimeoutMs: 10_000, maxAnswerBytes: 1024 * 1024, maxCalls: 3_000 };

export const hexQuantity = z.string().regex(/^0x[0-9a-fA-F]{1,64}$/, { error: 'expected a hex quantity' });
export const hexData = z.string().regex(/^0x([0-9a-fA-F]{2})*$/, { error: 'expected hex bytes' });

const rpcAnswer = z.union([
  z.object({ jsonrpc: z.literal('2.0'), id: z.number(), result: z.unknown() }),
  z.object({ jsonrpc: z.literal('2.0'), id: z.number().nullable(), error: z.object({ code: z.number(), message: z.string() }) }),
]);

export class NodeRpc {
  private calls = 0;

  constructor(
    readonly url: string,
    private readonly limits: NodeRpcLimits = DEFAULT_NODE_LIMITS,
  ) {}

  /** How many calls this client has made. */
  get callCount(): number {
    return this.calls;
  }

  /** Calls `method` and answers its result as `schema` reads it; a node error, time-out or odd answer throws. */
  async call<T>(method: string, params: readonly unknown[], schema: z.ZodType<T>): Promise<T> {
    if (this.calls >= this.limits.maxCalls) {
      throw new QkError('LIMIT_EXCEEDED', `the transaction reads more than ${this.limits.maxCalls} values from the node`);
    }
    this.calls += 1;
    const id = this.calls;
    const text = await this.post(JSON.stringify({ jsonrpc: '2.0', id, method, params }), method);
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new QkError('RESPONSE_INVALID', `the node answered ${method} with something that is not JSON`);
    }
    const answer = rpcAnswer.safeParse(json);
    if (!answer.success) throw new QkError('RESPONSE_INVALID', `the node answered ${method} with something that is not a JSON-RPC answer`);
    if ('error' in answer.data) throw new QkError('FAILED_PRECONDITION', `the node refused ${method}: ${answer.data.error.message.slice(0, 300)}`);
    if (answer.data.id !== id) throw new QkError('RESPONSE_INVALID', `the node answered ${method} for another request`);
    const result = schema.safeParse(answer.data.result);
    if (!result.success) throw new QkError('RESPONSE_INVALID', `the node's answer to ${method} is not what ${method} answers`);
    return result.data;
  }

  private async post(body: string, method: string): Promise<string> {
    const signal = AbortSignal.timeout(this.limits.callTimeoutMs);
    try {
      const response = await fetch(this.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
        redirect: 'error',
        signal,
      });
      if (!response.ok) {
        await response.body?.cancel();
        throw new QkError('NETWORK_ERROR', `the node answered ${method} with HTTP ${response.status}`);
      }
      return await this.readCapped(response, method);
    } catch (error) {
      if (error instanceof QkError) throw error;
      if (signal.aborted) throw new QkError('TIMEOUT', `the node did not answer ${method} within ${this.limits.callTimeoutMs / 1000} s`);
      throw new QkError(
        'NETWORK_ERROR',
        `the node could not be reached: ${error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error)}`,
      );
    }
  }

  /** The answer's text, refused once it passes the cap (declared or streamed) without holding more than the cap. */
  private async readCapped(response: Response, method: string): Promise<string> {
    const cap = this.limits.maxAnswerBytes;
    const tooLarge = () => new QkError('RESPONSE_TOO_LARGE', `the node's answer to ${method} is larger than ${cap} bytes`);
    const declared = Number(response.headers.get('content-length') ?? '0');
    if (declared > cap) {
      await response.body?.cancel();
      throw tooLarge();
    }
    const chunks: Uint8Array[] = [];
    let length = 0;
    if (response.body === null) return '';
    const reader = response.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      length += value.byteLength;
      if (length > cap) {
        await reader.cancel();
        throw tooLarge();
      }
      chunks.push(value);
    }
    return Buffer.concat(chunks).toString('utf8');
  }
}
