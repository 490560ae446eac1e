"""The case suites shipped with empa-gym, as data: one folder per suite (``manifest.yaml`` and
``cases/``). The package is registered as a suite collection in the ``empa.suites`` entry points,
so a new suite is a new folder here and nothing else."""
