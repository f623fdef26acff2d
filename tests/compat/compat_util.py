"""What the compat scripts share: TensorFlow imported or the test skipped, and checks counted.

    from compat_util import Checks, skip_without
    with skip_without("tensorflow"):
        import tensorflow as tf
    check = Checks()
    check(ours == theirs, "the same loss")
    sys.exit(check.summary())
"""
import contextlib
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")  # before TensorFlow loads: its start-up chatter off

SKIPPED = 77  # the scripts' ctest SKIP_RETURN_CODE


@contextlib.contextmanager
def skip_without(what="tensorflow", hint="bootstrap/install-deps.sh installs tensorflow-cpu"):
    """Imports in the block that fail end the script as skipped, saying what is missing."""
    try:
        yield
    except ImportError as e:
        print(f"SKIPPED: {what} cannot be imported ({e}); {hint}", flush=True)
        sys.exit(SKIPPED)


class Checks:
    """check(condition, what) prints "ok" or "FAIL" and what, and keeps the failures."""

    def __init__(self):
        self.failures = []

    def __call__(self, condition, what, detail=""):
        condition = bool(condition)
        shown = f"{what}: {detail}" if detail and not condition else what
        print(("ok   " if condition else "FAIL ") + shown, flush=True)
        if not condition:
            self.failures.append(shown)
        return condition

    def summary(self, passed="all checks passed"):
        """Prints the outcome; the script's exit status (1 when a check failed)."""
        if self.failures:
            print(f"{len(self.failures)} check(s) failed:")
            for f in self.failures:
                print("  " + f)
            return 1
        print(passed)
        return 0
