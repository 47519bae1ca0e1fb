import { expect, it, vi } from 'vitest';
import { startTestApp } from '../support/harness.ts';

// Issue 14, finding 6: every start printed the SDK's line about JSON responses dropping mid-call
// notifications, which an operator cannot act on (our tools send none). Other warnings still pass.

it('starting the service prints no MCP SDK notice about JSON responses', async () => {
  const warn = vi.spyOn(console, 'warn');
  try {
    const t = await startTestApp();
    await t.close();
    expect(warn.mock.calls.map((call) => String(call[0])).filter((line) => line.includes('drops mid-call notifications'))).toEqual([]);
    console.warn('another warning');
    expect(warn).toHaveBeenLastCalledWith('another warning');
  } finally {
    warn.mockRestore();
  }
});
