"""The errors a person running ``empa`` can act on.

Every exception that derives from :class:`UserError` is reported by :func:`empa_env.cli.main` as
one line ``error: MESSAGE`` on stderr with exit code 2, never as a traceback. The family:

* :class:`empa_env.registry.RegistryError` (and :class:`empa_env.policy.PolicySpecError`): an
  unknown backend, reward or policy kind, a missing or broken ``python:FILE.py:NAME``;
* :class:`empa_env.cases.suites.SuiteError` and :class:`empa_env.cases.loader.CaseError`: an
  unknown suite, a case file or folder that does not validate;
* ``benchmarks.store.ConfigMismatchError``: a run directory of another configuration;
* ``benchmarks.importers.official.OfficialFormatError``, ``baselines.dataclass_cli.ConfigError``;
* :class:`UserError` itself, raised by the commands for bad option values (``--seeds 0``), an
  unwritable ``--out``, a folder that is not a run directory, ...

Raise one of these from a command; do not print and return a code.
"""

from __future__ import annotations


class UserError(Exception):
    """An error the user can fix (bad option, unknown name, wrong directory); no traceback."""


#: The exit code of every :class:`UserError` (argparse's usage errors use it too).
USER_ERROR_EXIT = 2
#: The exit code after Ctrl-C (128 + SIGINT).
INTERRUPTED_EXIT = 130
