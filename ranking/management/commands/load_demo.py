from django.core.management.base import BaseCommand

from ranking.demo import demo_load


class Command(BaseCommand):
    help = "Load the demo corpus, systems, campaign and accounts (idempotent) and print the logins."

    def add_arguments(self, parser):
        parser.add_argument("--url", default="http://127.0.0.1:8000/")

    def handle(self, *args, **opts):
        info = demo_load()
        self.stdout.write("Demo data " + ("loaded." if info.created else "already present."))
        self.stdout.write(f"\nGEC Arena: {opts['url']}\nDemo logins (local demo only):")
        for username, password, role in info.accounts:
            self.stdout.write(f"  {role:<11} {username:<11} {password}")
