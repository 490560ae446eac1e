"""The errors a person running ``empa`` can act on.

Every exception that derives from :class:`UserError` is reported by :func:`empa_env.cli.main` as
one line ``error: MESSAGE`` on stderr with exit code 2, never as a traceback. The family:

* :class:`empa_env.registry.RegistryError` (and :class:`empa_env.policy.PolicySpecError`): an
  unknown backend, reward or policy kind, a missing or broken ``python:FILE.py:NAME``;
* :class:`empa_env.cases.suites.SuiteError` and :class:`empa_env.cases.loader.CaseError`: an
  unknown suite, a case file or folder that does not validate;
* ``benchmarks.store.ConfigMismatchError``: a run directory of another configuration;
* ``benchmarks.importers.official.OfficialFormatError``;
* :class:`ConfigError`: an invalid value of a configuration (``EnvConfig``, ``BenchConfig``, a
  trainer's configuration file), worded by field when raised from Python ("seeds must be >= 1")
  and by flag on the command line ("--seeds must be >= 1");
* :class:`UserError` itself, raised by the commands for bad option values (``--seeds 0``), an
  unwritable ``--out``, a folder that is not a run directory, ...

Raise one of these from a command; do not print and return a code.
"""

from __future__ import annotations


class UserError(Exception):
    """An error the user can fix (bad option, unknown name, wrong directory); no traceback."""


class ConfigError(UserError, ValueError):
    """An invalid configuration value, the same type from Python, Ray, inspect or the CLI.

    ``field`` names the configuration field (``"seeds"``); :meth:`as_flag` words the message for
    the command line, by the field's flag (``"--seeds must be >= 1, got 0"``)."""

    def __init__(self, message: str, *, field: str | None = None, flag: str | None = None):
        super().__init__(f"{field} {message}" if field else message)
        self.message, self.field = message, field
        self.flag = flag or (f"--{field.replace('_', '-')}" if field else None)

    def as_flag(self) -> str:
        return f"{self.flag} {self.message}" if self.flag else str(self)


#: The exit code of every :class:`UserError` (argparse's usage errors use it too).
USER_ERROR_EXIT = 2
#: The exit code after Ctrl-C (128 + SIGINT).
INTERRUPTED_EXIT = 130
