import type * as http from 'node:http';

/**
 * Server-sent events to every open preview page (`/__vidkit/events`): a saved project file, a
 * render's progress. Each page keeps one stream open; a closed page drops out.
 */
export class EventStream {
  private readonly listeners = new Set<http.ServerResponse>();

  /** Answers a request for the stream and keeps it open. */
  open(req: http.IncomingMessage, res: http.ServerResponse): true {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store', connection: 'keep-alive' });
    res.write(': connected\n\n');
    this.listeners.add(res);
    req.on('close', () => this.listeners.delete(res));
    return true;
  }

  send(event: string, data: unknown): void {
    const text = `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
    for (const res of this.listeners) res.write(text);
  }

  close(): void {
    for (const res of this.listeners) res.end();
    this.listeners.clear();
  }
}
