from django.contrib import admin

from crowd.models import CrowdWorker, InviteLink, MturkHit, PlatformCall


@admin.register(CrowdWorker)
class CrowdWorkerAdmin(admin.ModelAdmin):
    list_display = ["platform", "external_id", "user", "created"]
    list_filter = ["platform"]
    search_fields = ["external_id", "user__username"]
    raw_id_fields = ["user"]


@admin.register(InviteLink)
class InviteLinkAdmin(admin.ModelAdmin):
    list_display = ["campaign", "label", "reusable", "uses", "created"]
    list_select_related = ["campaign"]


@admin.register(MturkHit)
class MturkHitAdmin(admin.ModelAdmin):
    list_display = ["hit_id", "campaign", "sandbox", "max_assignments", "reward", "expired"]


@admin.register(PlatformCall)
class PlatformCallAdmin(admin.ModelAdmin):
    """The audit log is read-only."""

    list_display = ["created", "platform", "operation", "request_token", "ok", "sandbox"]
    list_filter = ["platform", "operation", "ok"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
