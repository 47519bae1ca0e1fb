import { EventEmitter } from 'node:events';
import type { Channel } from './notifications.ts';

// "Something about credentials changed": revocations, suspensions, role changes. Servers keep
// verified credentials for a few seconds and forget them all on this signal. In this process the
// signal is synchronous (announced right after the change commits); from other processes it
// arrives through PostgreSQL NOTIFY (migrations/0002) on the process's notification listener.

const changes = new EventEmitter();
changes.setMaxListeners(0);

export function announceAuthChange(): void {
  changes.emit('changed');
}

export function onAuthChange(listener: () => void): () => void {
  changes.on('changed', listener);
  return () => changes.off('changed', listener);
}

/** NOTIFY auth_changed: any notice, and any gap in listening, makes every cache forget. */
export const AUTH_CHANGES: Channel = { name: 'auth_changed', onNotice: announceAuthChange, onGap: announceAuthChange };
