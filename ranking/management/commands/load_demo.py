from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from ranking.demo import demo_load

PRODUCTION_FLAG = "--i-know-this-is-production"


class Command(BaseCommand):
    help = (
        "Load the demo corpus, systems, campaign and accounts (idempotent) and print the logins. "
        f"With DEBUG=false it refuses unless given {PRODUCTION_FLAG}, and then gives the accounts it "
        "makes random passwords instead of the published ones."
    )

    def add_arguments(self, parser):
        parser.add_argument("--url", default="http://127.0.0.1:8000/")
        parser.add_argument(
            PRODUCTION_FLAG,
            dest="production",
            action="store_true",
            help="load the demo although DEBUG is false; accounts made get random passwords",
        )

    def handle(self, *args, **opts):
        production = not settings.DEBUG
        if production and not opts["production"]:
            raise CommandError(
                "DEBUG is false: this looks like a production site, and the demo would create an administrator "
                f"and other accounts with published passwords. Give {PRODUCTION_FLAG} to load it anyway "
                "(its accounts then get random passwords, printed once)."
            )
        info = demo_load(random_passwords=production)
        self.stdout.write("Demo data " + ("loaded." if info.created else "already present."))
        label = "random passwords, shown once" if production else "local demo only"
        self.stdout.write(f"\nGEC Arena: {opts['url']}\nDemo logins ({label}):")
        for username, password, role in info.accounts:
            shown = password if password is not None else "(account already existed: password unchanged)"
            self.stdout.write(f"  {role:<11} {username:<11} {shown}")
