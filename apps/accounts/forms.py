from __future__ import annotations

from django import forms

from apps.accounts.services import MAX_TOKEN_DAYS


class TokenForm(forms.Form):
    name = forms.CharField(max_length=100, strip=True)
    expires_in_days = forms.IntegerField(
        min_value=1,
        max_value=MAX_TOKEN_DAYS,
        required=False,
        help_text="Leave empty for a token that does not expire.",
    )
