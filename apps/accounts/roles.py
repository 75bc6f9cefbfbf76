"""Roles are Django groups; each grants its permissions plus those of the roles below it."""

from __future__ import annotations

from enum import StrEnum


class Role(StrEnum):
    VIEWER = "viewer"
    ANNOTATOR = "annotator"
    REVIEWER = "reviewer"
    ADMIN = "admin"


# Permission codenames live on accounts.User (Meta.permissions).
PERMISSIONS: dict[str, str] = {
    "view_workbench": "Can view tasks, trees, sessions and runs",
    "annotate": "Can audit rubric trees",
    "adjudicate": "Can adjudicate audits and decide gold verdicts",
    "manage": "Can manage users, campaigns, datasets and training",
    # Not tied to a role below admin: LLM sessions spend model endpoints, so admins grant it.
    "use_llm": "Can start live sessions with LLM policies (spends model endpoints)",
}

ROLE_PERMISSIONS: dict[Role, tuple[str, ...]] = {
    Role.VIEWER: ("view_workbench",),
    Role.ANNOTATOR: ("view_workbench", "annotate"),
    Role.REVIEWER: ("view_workbench", "annotate", "adjudicate"),
    Role.ADMIN: ("view_workbench", "annotate", "adjudicate", "manage", "use_llm"),
}

# The permission an endpoint asks for when it needs a role.
ROLE_REQUIREMENT: dict[Role, str] = {
    Role.VIEWER: "accounts.view_workbench",
    Role.ANNOTATOR: "accounts.annotate",
    Role.REVIEWER: "accounts.adjudicate",
    Role.ADMIN: "accounts.manage",
}


class Capability(StrEnum):
    """What a user can do, in the words of the workbench's pages; `/api/me` lists these."""

    VIEW = "view"
    AUDIT = "audit"
    ADJUDICATE = "adjudicate"
    SYNTHESIZE = "synthesize"
    TRAIN = "train"
    RUN_LLM = "run_llm"
    ADMIN = "admin"


# The permission codename each capability needs: synthesis batches and training jobs are managed
# by admins (their services require Role.ADMIN); LLM sessions need their own grant.
CAPABILITY_PERMISSIONS: dict[Capability, str] = {
    Capability.VIEW: "view_workbench",
    Capability.AUDIT: "annotate",
    Capability.ADJUDICATE: "adjudicate",
    Capability.SYNTHESIZE: "manage",
    Capability.TRAIN: "manage",
    Capability.RUN_LLM: "use_llm",
    Capability.ADMIN: "manage",
}
