FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
WORKDIR /app
COPY requirements.txt .
RUN pip install --no-cache-dir -r requirements.txt
COPY . .
RUN DEBUG=true python manage.py collectstatic --noinput
RUN useradd --create-home arena && chown -R arena /app
USER arena
# TrueSkill's numba kernel compiled into the image: its cache lands in geceval/human/__pycache__ (owned
# by arena, so a different CPU at run time can add its own entry); docs/benchmarks.md "TrueSkill kernel cache"
RUN python -c "from geceval.human.trueskill import load_kernel; load_kernel()"
EXPOSE 8000
CMD ["gunicorn", "config.wsgi:application", "--bind", "0.0.0.0:8000", "--workers", "3"]
