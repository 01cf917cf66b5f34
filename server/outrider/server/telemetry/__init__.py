"""Traces (OpenTelemetry), Prometheus metrics and structured logs.

`catalogue` names every metric and span (the one table docs are generated from); `metrics` holds
the instruments; `tracing` wraps the OpenTelemetry API and wires the OTLP exporter from the
standard OTEL_* variables; `logs` formats log lines (text or JSON) with run, trace and principal.
"""
