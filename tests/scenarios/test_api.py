"""GET /api/scenarios and /api/scenarios/{slug}: published catalogue, starter files, no hidden material."""

from __future__ import annotations

from sqlalchemy.orm import Session

from app.engine.builtin import find_builtin
from app.scenarios.models import Scenario


def test_list_shows_published_scenarios_with_components(client, make_user, builtin_slugs) -> None:
    body = client.get("/api/scenarios", headers=make_user().headers).json()
    by_slug = {item["slug"]: item for item in body}
    assert set(builtin_slugs) <= set(by_slug)
    warm = by_slug["warm-up"]
    assert set(warm) == {"slug", "title", "difficulty", "version", "components", "interface"}
    assert warm["components"] == sorted({b.component for b in find_builtin("warm-up").bugs})


def test_each_card_names_its_interface_and_the_list_filters_by_it(client, make_user, builtin_slugs) -> None:
    headers = make_user().headers
    body = client.get("/api/scenarios", headers=headers).json()
    by_slug = {item["slug"]: item for item in body}
    assert by_slug["warm-up"]["interface"] == "gpt-v1"
    assert by_slug["norm-and-gate"]["interface"] == "llama-v1"
    builtins = [item for item in body if item["slug"] in builtin_slugs]
    assert all(item["interface"] == getattr(find_builtin(item["slug"]), "interface", None) for item in builtins)
    llama = client.get("/api/scenarios", params={"interface": "llama-v1"}, headers=headers).json()
    assert llama and {item["slug"] for item in llama} == {i["slug"] for i in body if i["interface"] == "llama-v1"}
    unknown = client.get("/api/scenarios", params={"interface": "mamba-v1"}, headers=headers)
    assert unknown.status_code == 422 and "gpt-v1, llama-v1" in unknown.json()["detail"]


def test_list_leaves_out_archived_scenarios(client, make_user, builtin_slugs, db: Session) -> None:
    scenario = db.query(Scenario).filter_by(slug="warm-up").one()
    scenario.archived = True
    db.commit()
    try:
        slugs = {item["slug"] for item in client.get("/api/scenarios", headers=make_user().headers).json()}
        assert "warm-up" not in slugs
        assert client.get("/api/scenarios/warm-up", headers=make_user().headers).status_code == 404
    finally:  # the SQLite `db` fixture's rollback does not undo commits (pysqlite savepoints)
        scenario.archived = False
        db.commit()


def test_detail_gives_starter_files_and_never_solution_or_bug_material(client, make_user, builtin_slugs) -> None:
    package = find_builtin("warm-up")
    response = client.get("/api/scenarios/warm-up", headers=make_user().headers)
    assert response.status_code == 200
    body = response.json()
    assert body["files"] == {name: package.starter_files[name] for name in package.files}
    assert body["brief"] == package.brief
    assert [q["id"] for q in body["questions"]] == [q["id"] for q in package.questions]
    # Every string the response carries, decoded (JSON escaping would hide quoted code from `in`).
    text = "\n".join([body["brief"], *body["files"].values(), *(q["text"] for q in body["questions"])])
    for bug in package.bugs:
        assert bug.id not in text
        for hint in bug.hints:
            assert hint not in text
    # Lines only the solution has (the bug edits remove them) must not leak.
    secret_lines = []
    for name, solution in package.solution_files.items():
        starter_lines = set(package.starter_files[name].splitlines())
        secret_lines += [line for line in solution.splitlines() if line.strip() and line not in starter_lines]
    assert secret_lines, "the planted bugs should change the solution somewhere"
    for line in secret_lines:
        assert line not in text


def test_unknown_scenario_is_404_and_anonymous_is_401(client, make_user, builtin_slugs) -> None:
    assert client.get("/api/scenarios/nope", headers=make_user().headers).status_code == 404
    assert client.get("/api/scenarios").status_code == 401
