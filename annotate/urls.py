from django.urls import path

from annotate import views
from annotate.accounts import views as accounts
from annotate.formats import views as io_views
from annotate.jobs import views as job_views
from annotate.projects import views as projects
from annotate.rewrites import views as rw
from annotate.rewrites import views_lists as rw_lists

urlpatterns = [
    path("setup/", views.first_account, name="first-account"),
    path("accounts/", accounts.account_list, name="account-list"),
    path("accounts/<int:pk>/", accounts.account_detail, name="account"),
    path("accounts/unlock/<str:token>/", accounts.login_unlock, name="login-unlock"),
    path("projects/", projects.project_list, name="project-list"),
    path("projects/new/", projects.project_new, name="project-new"),
    path("projects/switch/", projects.project_switch, name="project-switch"),
    path("projects/<int:pk>/", projects.project_detail, name="project"),
    path("projects/<int:pk>/members/<int:user_id>/role/", projects.member_role, name="project-member-role"),
    path(
        "projects/<int:pk>/members/<int:user_id>/remove/",
        projects.member_remove,
        name="project-member-remove",
    ),
    path(
        "projects/<int:pk>/invitations/<int:invitation_id>/renew/",
        projects.invitation_renew,
        name="project-invitation-renew",
    ),
    path("invitations/<int:pk>/answer/", projects.invitation_answer, name="invitation-answer"),
    path("invitations/<str:token>/", projects.invitation, name="invitation"),
    path("qualifications/", rw_lists.qualification_list, name="qualification-list"),
    path("corpora/upload/", views.corpus_upload, name="corpus-upload"),
    path("corpora/<int:pk>/", views.corpus_detail, name="corpus-detail"),
    path("corpora/<int:pk>/systems/<int:system_pk>/tags/", views.system_tags, name="system-tags"),
    path("imports/", job_views.import_jobs, name="import-jobs"),
    path("imports/<int:pk>/", job_views.import_job, name="import-job"),
    path("imports/<int:pk>/progress/", job_views.import_job_progress, name="import-job-progress"),
    path("imports/<int:pk>/download/", job_views.import_job_download, name="import-job-download"),
    path("corpora/<int:pk>/export/", io_views.corpus_export, name="corpus-export"),
    path("corpora/<int:pk>/stats/", io_views.corpus_stats, name="corpus-stats"),
    path("rewrites/<int:pk>/export/", io_views.campaign_export, name="rewrite-campaign-export"),
    path("rewrites/<int:pk>/stats/", io_views.campaign_stats, name="rewrite-campaign-stats"),
    path("rewrites/", rw.index, name="rewrite-index"),
    path("rewrites/new/", rw.campaign_new, name="rewrite-campaign-new"),
    path("rewrites/<int:pk>/", rw.campaign_detail, name="rewrite-campaign"),
    path("rewrites/<int:pk>/status/", rw.campaign_status, name="rewrite-campaign-status"),
    path("rewrites/<int:pk>/work/", rw.work, name="rewrite-work"),
    path("rewrites/<int:pk>/skip/", rw.skip, name="rewrite-skip"),
    path("rewrites/<int:pk>/draft/", rw.draft, name="rewrite-draft"),
    path("rewrites/<int:pk>/mine/", rw.mine, name="rewrite-mine"),
    path("rewrites/<int:pk>/review/", rw.review, name="rewrite-review"),
    path("qualifications/new/", rw.qualification_new, name="qualification-new"),
    path("qualifications/<int:pk>/", rw.qualification_detail, name="qualification"),
    path("qualifications/<int:pk>/take/", rw.qualification_take, name="qualification-take"),
    path("qualifications/attempts/<int:pk>/decide/", rw.qualification_decide, name="qualification-decide"),
]
