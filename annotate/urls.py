from django.urls import path

from annotate import views

urlpatterns = [
    path("corpora/upload/", views.corpus_upload, name="corpus-upload"),
    path("corpora/<int:pk>/", views.corpus_detail, name="corpus-detail"),
]
