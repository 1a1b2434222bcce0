import type { FastifyReply } from 'fastify';
import type { RateStatus } from '../domain/limits/rate-limit.js';

export function setRateHeaders(reply: FastifyReply, rate: RateStatus): void {
  reply.header('x-ratelimit-limit', String(rate.limit));
  reply.header('x-ratelimit-remaining', String(rate.remaining));
  reply.header('x-ratelimit-reset', String(rate.resetEpochSeconds));
}
