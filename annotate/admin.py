from django.contrib import admin

from annotate.models import Corpus, Project, Sentence


@admin.register(Project)
class ProjectAdmin(admin.ModelAdmin):
    list_display = ["name", "owner", "created"]
    filter_horizontal = ["members"]


@admin.register(Corpus)
class CorpusAdmin(admin.ModelAdmin):
    list_display = ["name", "project", "language", "tokenized", "created"]
    list_filter = ["project"]


@admin.register(Sentence)
class SentenceAdmin(admin.ModelAdmin):
    list_display = ["corpus", "position", "domain", "text"]
    list_filter = ["corpus"]
    list_select_related = ["corpus"]
