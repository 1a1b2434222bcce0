import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { McpClients } from './client-info.js';

const initialize = (name: unknown, version: unknown) => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name, version } },
});
const call = (meta?: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id: 2,
  method: 'tools/call',
  params: { name: 'svc_get_context', arguments: {}, ...(meta && { _meta: meta }) },
});

describe('MCP client identification for the audit trail', () => {
  it('reads a 2026-07-28 envelope, and remembers a 2025-era initialize for that key only', () => {
    const clients = new McpClients();
    expect(clients.of(call({ 'io.modelcontextprotocol/clientInfo': { name: 'ide', version: '3.1' } }), 'k1')).toEqual({
      name: 'ide',
      version: '3.1',
    });
    expect(clients.of(call(), 'k1')).toBeUndefined();
    expect(clients.of(initialize('agent', '1.0.0'), 'k1')).toEqual({ name: 'agent', version: '1.0.0' });
    expect(clients.of(call(), 'k1')).toEqual({ name: 'agent', version: '1.0.0' });
    expect(clients.of(call(), 'k2')).toBeUndefined();
    expect(clients.of([call(), initialize('batched', null)], 'k2')).toEqual({ name: 'batched', version: null });
  });

  it('never throws, and keeps names and versions to 100 characters, whatever the body', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.string(), fc.jsonValue(), (body, name, version) => {
        const clients = new McpClients();
        clients.of(body, 'k');
        const found = clients.of([initialize(`${name}x`, version), body], 'k');
        expect(found?.name.length).toBeLessThanOrEqual(100);
        expect((found?.version ?? '').length).toBeLessThanOrEqual(100);
      }),
    );
    expect(new McpClients().of(initialize('n'.repeat(500), 'v'.repeat(500)), 'k')).toEqual({
      name: 'n'.repeat(100),
      version: 'v'.repeat(100),
    });
  });
});
