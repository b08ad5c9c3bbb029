from django.contrib import admin

from ranking.models import Campaign, SystemScore


@admin.register(Campaign)
class CampaignAdmin(admin.ModelAdmin):
    list_display = ["name", "project", "protocol", "status", "created"]
    list_filter = ["protocol", "status"]


@admin.register(SystemScore)
class SystemScoreAdmin(admin.ModelAdmin):
    list_display = ["campaign", "system", "mean_score", "items", "ratings"]
    list_select_related = ["campaign", "system"]
