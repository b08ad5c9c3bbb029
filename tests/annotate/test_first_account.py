"""Issue 20: an empty installation's first account is made in the browser, not with a shell."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from annotate.first_account import FirstAccountForm, FirstAccountTaken, first_account_create
from annotate.models import Project, Role
from annotate.roles import user_roles

pytestmark = pytest.mark.django_db

GOOD = {
    "username": "ada",
    "email": "ada@example.org",
    "password1": "a long pass phrase 7",
    "password2": "a long pass phrase 7",
}


def test_an_empty_installation_offers_set_up_and_the_first_account_is_the_administrator(client, tmp_path):
    (tmp_path / "t.src").write_bytes(b"a b\n")
    (tmp_path / "t.ref0").write_bytes(b"A b\n")
    call_command(
        "import_corpus", str(tmp_path / "t"), "--format", "jfleg", "--name", "jf"
    )  # ownerless project
    login_page = client.get("/accounts/login/").content.decode()
    assert 'href="/setup/"' in login_page and "no account yet" in login_page
    assert client.get("/setup/").status_code == 200

    response = client.post("/setup/", GOOD)
    assert response.status_code == 302 and response["Location"] == "/"
    user = get_user_model().objects.get()
    assert (user.username, user.is_superuser, user.is_staff) == ("ada", True, True)
    assert {Role.ADMIN, Role.RESEARCHER} <= user_roles(user)
    adopted = Project.objects.get(name="default")
    assert adopted.owner == user and adopted.roles.get(user=user).role == Role.RESEARCHER
    home = client.get("/").content.decode()
    assert "you are this installation&#x27;s administrator" in home

    # once an account exists the page is gone, and a second submission makes nothing
    assert client.get("/setup/")["Location"] == "/"
    client.logout()
    assert client.get("/setup/")["Location"] == "/accounts/login/"
    assert client.post("/setup/", GOOD | {"username": "eve"})["Location"] == "/accounts/login/"
    assert get_user_model().objects.count() == 1
    assert "no account yet" not in client.get("/accounts/login/").content.decode()


def test_a_weak_or_mismatched_password_saves_nothing(client):
    response = client.post("/setup/", GOOD | {"password1": "123", "password2": "124"})
    assert response.status_code == 400
    assert "password fields didn" in response.content.decode()
    assert not get_user_model().objects.exists()


def test_whoever_comes_second_is_refused_with_nothing_saved():
    form = FirstAccountForm(GOOD)
    assert form.is_valid()
    get_user_model().objects.create_user("quick", password="x")  # made between the form and the save
    with pytest.raises(FirstAccountTaken):
        first_account_create(form)
    assert list(get_user_model().objects.values_list("username", flat=True)) == ["quick"]


@pytest.mark.django_db(transaction=True)
def test_two_at_once_on_postgresql_make_one_administrator(real_postgres):
    """Two sign-ups racing on a new install, each in its own connection: one wins, one is refused."""
    import threading

    from django.db import connections

    barrier, outcomes = threading.Barrier(2), []

    def sign_up(name: str) -> None:
        form = FirstAccountForm(GOOD | {"username": name})
        assert form.is_valid()
        barrier.wait()
        try:
            first_account_create(form)
            outcomes.append("made")
        except FirstAccountTaken:
            outcomes.append("refused")
        finally:
            connections.close_all()

    threads = [threading.Thread(target=sign_up, args=(n,)) for n in ("ada", "bob")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(outcomes) == ["made", "refused"]
    assert get_user_model().objects.filter(is_superuser=True).count() == 1
