"""Importers: results published by other benchmarks, as normal run stores."""
