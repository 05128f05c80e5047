"""User-facing errors: each becomes a one-line message and exit code 2 on the command line."""

from __future__ import annotations


class UserError(ValueError):
    """A mistake in what the user asked for (an illegal fleet, an unknown option value...).

    The message must be one line naming the thing at fault and what is allowed.
    """
