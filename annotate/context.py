from django.http import HttpRequest

from annotate.roles import is_annotator, is_researcher


def roles(request: HttpRequest) -> dict[str, bool]:
    user = request.user
    return {"is_researcher": is_researcher(user), "is_annotator": is_annotator(user)}
