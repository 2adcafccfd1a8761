/**
 * Prometheus metrics of the default registry, shared by every app
 * in the process (several workers and test files build their own).
 */
import { Counter, Gauge, register } from 'prom-client';

export const sharedCounter = (name: string, help: string, labelNames: string[] = []) =>
  (register.getSingleMetric(name) as Counter<string> | undefined) ?? new Counter({ name, help, labelNames });

export const sharedGauge = (name: string, help: string) =>
  (register.getSingleMetric(name) as Gauge | undefined) ?? new Gauge({ name, help });
