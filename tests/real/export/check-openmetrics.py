#!/usr/bin/env python3
# check-openmetrics.py FILE: parse FILE with prometheus_client's OpenMetrics parser (strict:
# # EOF, counters named without _total, units a suffix of the family); print the families as
# "NAME TYPE UNIT" lines. Exit 77 without the module (Debian: python3-prometheus-client).
import sys

try:
    from prometheus_client.openmetrics.parser import text_string_to_metric_families
except ImportError:
    sys.exit(77)
with open(sys.argv[1], encoding="utf-8") as f:
    text = f.read()
try:
    for fam in text_string_to_metric_families(text):
        print(fam.name, fam.type, fam.unit or "-")
except Exception as e:  # the parser raises ValueError and others for a bad exposition
    print("not OpenMetrics: %s" % e, file=sys.stderr)
    sys.exit(1)
