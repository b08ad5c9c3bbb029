from django.contrib import admin

from annotate.models import Corpus, Project, ProjectRole, Sentence, System


class ProjectRoleInline(admin.TabularInline):
    """A member's role in this project (what opens it to them); members keep working on the project
    page, which keeps both in step."""

    model = ProjectRole
    extra = 0
    raw_id_fields = ["user"]


@admin.register(Project)
class ProjectAdmin(admin.ModelAdmin):
    list_display = ["name", "owner", "created"]
    filter_horizontal = ["members"]
    inlines = [ProjectRoleInline]


@admin.register(Corpus)
class CorpusAdmin(admin.ModelAdmin):
    list_display = ["name", "project", "language", "tokenized", "created"]
    list_filter = ["project"]


@admin.register(Sentence)
class SentenceAdmin(admin.ModelAdmin):
    list_display = ["corpus", "position", "domain", "text"]
    list_filter = ["corpus"]
    list_select_related = ["corpus"]


@admin.register(System)
class SystemAdmin(admin.ModelAdmin):
    list_display = ["name", "kind", "tags", "corpus"]
    list_filter = ["kind"]
    list_select_related = ["corpus"]


# --------------------------------------------------------------------------- rewrite collection
from annotate.models import (  # noqa: E402
    Qualification,
    QualificationAttempt,
    Rewrite,
    RewriteCampaign,
    RewriteCampaignGroup,
    RewriteSlot,
)


class RewriteCampaignGroupInline(admin.TabularInline):
    model = RewriteCampaignGroup
    extra = 0


@admin.register(RewriteCampaign)
class RewriteCampaignAdmin(admin.ModelAdmin):
    list_display = ["name", "project", "corpus", "preset", "rewrites_per_sentence", "status", "created"]
    list_filter = ["status", "preset", "project"]
    inlines = [RewriteCampaignGroupInline]
    raw_id_fields = ["corpus", "qualification", "created_by"]


@admin.register(Rewrite)
class RewriteAdmin(admin.ModelAdmin):
    list_display = ["campaign", "sentence", "annotator", "group", "flag", "difficulty", "status", "created"]
    list_filter = ["campaign", "status", "flag", "group"]
    list_select_related = ["campaign", "sentence", "annotator"]
    raw_id_fields = ["sentence", "annotator", "reviewer", "review_claimed_by"]


@admin.register(RewriteSlot)
class RewriteSlotAdmin(admin.ModelAdmin):
    list_display = ["campaign", "sentence", "index", "group", "claimed_by", "claimed_at", "rewrite"]
    list_filter = ["campaign"]
    list_select_related = ["campaign", "sentence", "claimed_by", "group"]
    raw_id_fields = ["sentence", "claimed_by", "rewrite"]


@admin.register(Qualification)
class QualificationAdmin(admin.ModelAdmin):
    list_display = ["name", "project", "created"]


@admin.register(QualificationAttempt)
class QualificationAttemptAdmin(admin.ModelAdmin):
    list_display = ["qualification", "worker", "status", "tries", "retry_allowed", "reviewer", "submitted"]
    list_filter = ["qualification", "status"]
