"""Query strings that give a parameter twice are refused.

`?caller_app=a&caller_app=b` is one request that says two things: FastAPI reads the
last value, other parsers (a gateway, a proxy's access rule, a log reader) the first,
so a check made in front of the service could pass one value while the service acts
on the other, as with the repeated JSON keys and form fields refused already. No
route reads a list from the query string, so every route refuses them (an app-wide
dependency): 422 `repeated_field`, 400 on `/v1` as OpenAI answers a malformed request.
"""

from __future__ import annotations

from collections import Counter

from fastapi import Request

from threadline.api.errors import ApiError

REPEATED_FIELD_CODE = "repeated_field"


class RepeatedQueryParameter(ApiError):
    """A query string giving a parameter twice; `param` names the first such parameter."""

    def __init__(self, names: list[str]) -> None:
        """Name the repeated parameters (a few, shortened: they are the client's text)."""
        shown = ", ".join(name if len(name) <= 64 else name[:64] + "..." for name in names[:5])
        super().__init__(
            422, REPEATED_FIELD_CODE, f"Give each query parameter once; repeated: {shown}."
        )
        self.param = names[0]


def refuse_repeated_query_parameters(request: Request) -> None:
    """Refuse a request whose query string gives a parameter more than once.

    Raises:
        RepeatedQueryParameter: 422 `repeated_field`.
    """
    counts = Counter(name for name, _ in request.query_params.multi_items())
    repeated = sorted(name for name, count in counts.items() if count > 1)
    if repeated:
        raise RepeatedQueryParameter(repeated)
