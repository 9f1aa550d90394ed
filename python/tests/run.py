"""
Runs the package's tests (test_*.py here) and prints a line per test as
the C unit tests do, for tests/run.sh: "pass NAME", "fail NAME: why",
"skip NAME: why".  Any unittest runner runs them too:
python -m unittest discover -s python/tests -v.
"""
import os
import sys
import unittest


def name(test):
    return test.id().replace(".", "/").replace(" ", "_")


class LineResult(unittest.TestResult):
    def addSuccess(self, test):
        print("pass", name(test), flush=True)

    def addFailure(self, test, err):
        first = (str(err[1]).splitlines() or [""])[0]
        print(f"fail {name(test)}: {err[0].__name__}: {first}", flush=True)
        print(self._exc_info_to_string(err, test), file=sys.stderr)

    addError = addFailure

    def addSubTest(self, test, subtest, err):
        if err is not None:     # the test then has no pass line
            self.addFailure(subtest, err)

    def addSkip(self, test, reason):
        print(f"skip {name(test)}: {reason}", flush=True)


suite = unittest.defaultTestLoader.discover(os.path.dirname(os.path.abspath(__file__)))
result = LineResult()
suite.run(result)
sys.exit(0 if result.wasSuccessful() else 1)
