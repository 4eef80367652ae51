"""The ledger's schema: an ordered list of migrations.

`PRAGMA user_version` records how many have run. Never edit a shipped
migration: append one. Statements are split on `;`, so none may hold one
inside a literal or a trigger.
"""

from __future__ import annotations

MIGRATIONS: tuple[str, ...] = (
    # 1: ingest ledger
    """
    CREATE TABLE raw_files (
        path TEXT PRIMARY KEY,            -- vault-relative POSIX path
        size INTEGER NOT NULL,
        mtime_ns INTEGER NOT NULL,
        sha256 TEXT NOT NULL,
        source TEXT,
        status TEXT NOT NULL CHECK (status IN ('ok', 'empty', 'failed', 'pending')),
        reason TEXT,
        conversations INTEGER NOT NULL DEFAULT 0,
        redactions INTEGER NOT NULL DEFAULT 0,
        ingested_at TEXT NOT NULL
    );
    CREATE TABLE conversations (
        id TEXT PRIMARY KEY,              -- the source's own id, else a content hash
        hash8 TEXT NOT NULL,              -- the conv:HASH citation key
        source TEXT NOT NULL,
        file TEXT NOT NULL,               -- the Raw file holding the fullest copy
        parent_id TEXT,                   -- a subagent's parent session
        title TEXT,
        created_at TEXT,
        updated_at TEXT,
        message_count INTEGER NOT NULL,
        content_sha TEXT NOT NULL,
        ingested_at TEXT NOT NULL,
        chunked_at TEXT                   -- NULL or older than ingested content: re-segment
    );
    CREATE INDEX conversations_hash8 ON conversations(hash8);
    CREATE INDEX conversations_updated ON conversations(updated_at);
    CREATE TABLE messages (
        conv_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
        position INTEGER NOT NULL,
        role TEXT NOT NULL,
        text TEXT NOT NULL,
        ts TEXT,
        PRIMARY KEY (conv_id, position)
    ) WITHOUT ROWID;
    CREATE TABLE file_conversations (
        path TEXT NOT NULL REFERENCES raw_files(path) ON DELETE CASCADE,
        conv_id TEXT NOT NULL,
        message_count INTEGER NOT NULL,
        content_sha TEXT NOT NULL,
        PRIMARY KEY (path, conv_id)
    ) WITHOUT ROWID;
    CREATE TABLE chunks (
        id TEXT PRIMARY KEY,              -- "<conv>:<start>-<end>", deterministic
        conv_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
        start INTEGER NOT NULL,
        end INTEGER NOT NULL,
        label TEXT NOT NULL,
        created_at TEXT NOT NULL
    );
    CREATE INDEX chunks_conv ON chunks(conv_id, start);
    CREATE TABLE watermarks (
        name TEXT PRIMARY KEY,
        value TEXT NOT NULL,
        updated_at TEXT NOT NULL
    );
    CREATE TABLE runs (
        id TEXT PRIMARY KEY,
        kind TEXT NOT NULL,
        started_at TEXT NOT NULL,
        finished_at TEXT,
        status TEXT NOT NULL DEFAULT 'running',
        summary TEXT                      -- JSON
    );
    """,
    # 2: derived cache of the articles (rebuilt by reindex)
    """
    CREATE TABLE entities (
        stem TEXT PRIMARY KEY,
        title TEXT NOT NULL,
        kind TEXT,
        type TEXT,
        lead TEXT,
        is_redirect INTEGER NOT NULL DEFAULT 0,
        redirect_to TEXT,
        checksum TEXT NOT NULL
    );
    CREATE TABLE entity_aliases (
        alias TEXT NOT NULL,              -- casefolded
        stem TEXT NOT NULL,
        PRIMARY KEY (alias, stem)
    ) WITHOUT ROWID;
    CREATE TABLE categories (name TEXT PRIMARY KEY);
    CREATE TABLE article_categories (
        stem TEXT NOT NULL,
        category TEXT NOT NULL,
        PRIMARY KEY (stem, category)
    ) WITHOUT ROWID;
    CREATE TABLE infobox_facts (
        stem TEXT NOT NULL,
        position INTEGER NOT NULL,
        key TEXT NOT NULL,
        value TEXT NOT NULL,
        PRIMARY KEY (stem, position)
    ) WITHOUT ROWID;
    CREATE TABLE links (
        src TEXT NOT NULL,
        dst TEXT NOT NULL,
        via TEXT NOT NULL,                -- prose | infobox | seealso | series | main | redirect
        PRIMARY KEY (src, dst, via)
    ) WITHOUT ROWID;
    """,
    # 3: model accounting
    """
    CREATE TABLE model_calls (
        id INTEGER PRIMARY KEY,
        run_id TEXT,
        stage TEXT NOT NULL,
        unit TEXT,
        model TEXT NOT NULL,
        prompt_tokens INTEGER NOT NULL DEFAULT 0,
        cached_tokens INTEGER NOT NULL DEFAULT 0,
        generated_tokens INTEGER NOT NULL DEFAULT 0,
        seconds REAL NOT NULL DEFAULT 0,
        error TEXT,
        at TEXT NOT NULL
    );
    CREATE INDEX model_calls_run ON model_calls(run_id, stage);
    """,
    # 4: the pipeline's tables; runs and model calls constrained; the article cache renamed
    """
    CREATE TABLE runs_v4 (
        id TEXT PRIMARY KEY,
        kind TEXT NOT NULL CHECK (kind IN ('ingest', 'night', 'stage')),
        started_at TEXT NOT NULL,
        finished_at TEXT,
        status TEXT NOT NULL DEFAULT 'running'
            CHECK (status IN ('running', 'ok', 'failed', 'interrupted')),
        summary TEXT,                     -- JSON
        commit_sha TEXT                   -- the vault commit the run made, if any
            CHECK (commit_sha IS NULL OR length(commit_sha) IN (40, 64)),
        CHECK ((status = 'running') = (finished_at IS NULL))
    );
    INSERT INTO runs_v4(id, kind, started_at, finished_at, status, summary)
        SELECT id, kind, started_at, finished_at, status, summary FROM runs ORDER BY rowid;
    DROP TABLE runs;
    ALTER TABLE runs_v4 RENAME TO runs;
    CREATE INDEX runs_started ON runs(started_at);

    CREATE TABLE model_calls_v4 (
        id INTEGER PRIMARY KEY,
        run_id TEXT REFERENCES runs(id) ON DELETE SET NULL,
        stage TEXT NOT NULL,
        unit TEXT,
        model TEXT NOT NULL,
        prompt_tokens INTEGER NOT NULL DEFAULT 0,
        cached_tokens INTEGER NOT NULL DEFAULT 0,
        generated_tokens INTEGER NOT NULL DEFAULT 0,
        seconds REAL NOT NULL DEFAULT 0,
        error TEXT,
        at TEXT NOT NULL
    );
    INSERT INTO model_calls_v4
        SELECT id, CASE WHEN run_id IN (SELECT id FROM runs) THEN run_id END, stage, unit,
               model, prompt_tokens, cached_tokens, generated_tokens, seconds, error, at
        FROM model_calls;
    DROP TABLE model_calls;
    ALTER TABLE model_calls_v4 RENAME TO model_calls;
    CREATE INDEX model_calls_run ON model_calls(run_id, stage);

    CREATE TABLE chunks_v4 (
        id TEXT PRIMARY KEY,              -- "<conv>:<first>-<last>", deterministic
        conv_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
        first_message INTEGER NOT NULL CHECK (first_message >= 0),
        last_message INTEGER NOT NULL CHECK (last_message >= first_message),
        label TEXT NOT NULL,
        input_hash TEXT NOT NULL,         -- digest of the messages it was cut from
        segmenter_version TEXT NOT NULL,  -- '' for chunks older than the version stamp
        created_at TEXT NOT NULL
    );
    INSERT INTO chunks_v4
        SELECT id, conv_id, "start", "end", label, '', '', created_at FROM chunks;
    DROP TABLE chunks;
    ALTER TABLE chunks_v4 RENAME TO chunks;
    CREATE INDEX chunks_conv ON chunks(conv_id, first_message);
    -- The work table records what has been segmented.
    ALTER TABLE conversations DROP COLUMN chunked_at;

    CREATE TABLE work (
        stage TEXT NOT NULL,
        unit TEXT NOT NULL,               -- a conversation, chunk, bucket or article id
        input_hash TEXT NOT NULL,         -- digest of everything the unit's output depends on
        status TEXT NOT NULL CHECK (status IN ('done', 'failed', 'rejected')),
        attempts INTEGER NOT NULL DEFAULT 1 CHECK (attempts >= 1),  -- with this input
        last_error TEXT,
        run_id TEXT REFERENCES runs(id) ON DELETE SET NULL,
        updated_at TEXT NOT NULL,
        PRIMARY KEY (stage, unit)
    ) WITHOUT ROWID;
    CREATE INDEX work_run ON work(run_id);

    CREATE TABLE subjects (
        name TEXT PRIMARY KEY,            -- canonical: the key every surface form resolves to
        display TEXT NOT NULL,            -- the title as first written
        status TEXT NOT NULL DEFAULT 'candidate'
            CHECK (status IN ('candidate', 'article', 'captured', 'redirect')),
        article_stem TEXT,                -- its own article
        first_seen TEXT NOT NULL,
        CHECK ((status = 'article') = (article_stem IS NOT NULL))
    );
    CREATE UNIQUE INDEX subjects_article ON subjects(article_stem)
        WHERE article_stem IS NOT NULL;
    CREATE TABLE chunk_subjects (
        chunk_id TEXT NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
        subject TEXT NOT NULL REFERENCES subjects(name) ON DELETE CASCADE,
        surface TEXT NOT NULL,            -- as the chunk named it
        is_main INTEGER NOT NULL DEFAULT 0 CHECK (is_main IN (0, 1)),
        PRIMARY KEY (chunk_id, subject)
    ) WITHOUT ROWID;
    CREATE INDEX chunk_subjects_subject ON chunk_subjects(subject);
    CREATE TABLE subject_redirects (
        subject TEXT PRIMARY KEY REFERENCES subjects(name) ON DELETE CASCADE,
        target_stem TEXT NOT NULL,        -- the article the subject resolves to
        reason TEXT NOT NULL CHECK (reason IN ('folded', 'captured')),
        created_at TEXT NOT NULL
    ) WITHOUT ROWID;

    CREATE TABLE buckets (
        id INTEGER PRIMARY KEY,           -- 0 is `_captured`, the catch-all
        label TEXT NOT NULL,
        label_key TEXT NOT NULL UNIQUE,   -- the label as compared
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        CHECK ((id = 0) = (label_key = '_captured'))
    );
    INSERT INTO buckets(id, label, label_key, created_at, updated_at) VALUES (
        0, '_captured', '_captured',
        strftime('%Y-%m-%dT%H:%M:%S+00:00', 'now'), strftime('%Y-%m-%dT%H:%M:%S+00:00', 'now')
    );
    CREATE TABLE bucket_chunks (
        bucket_id INTEGER NOT NULL REFERENCES buckets(id) ON DELETE CASCADE,
        chunk_id TEXT NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
        added_at TEXT NOT NULL,
        synthesized_run TEXT REFERENCES runs(id),  -- NULL until folded into its articles
        PRIMARY KEY (bucket_id, chunk_id)
    ) WITHOUT ROWID;
    CREATE INDEX bucket_chunks_chunk ON bucket_chunks(chunk_id);
    CREATE INDEX bucket_chunks_delta ON bucket_chunks(bucket_id) WHERE synthesized_run IS NULL;

    CREATE TABLE gate_rejections (
        id INTEGER PRIMARY KEY,
        run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        stage TEXT NOT NULL,
        unit TEXT NOT NULL,
        stem TEXT NOT NULL,               -- the article the refused edit was for
        code TEXT NOT NULL,               -- the gate's machine-readable reason
        detail TEXT NOT NULL,
        at TEXT NOT NULL
    );
    CREATE INDEX gate_rejections_run ON gate_rejections(run_id);

    ALTER TABLE entities RENAME TO article_index;
    ALTER TABLE entity_aliases RENAME TO article_aliases;
    ALTER TABLE infobox_facts RENAME COLUMN "key" TO field;
    """,
    # 5: which chunk is woven into which article (SYNTHESIZE's progress)
    """
    CREATE TABLE woven (
        chunk_id TEXT NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
        stem TEXT NOT NULL,               -- the article the chunk is folded into
        run_id TEXT,                      -- the run that wrote it
        woven_at TEXT NOT NULL,
        PRIMARY KEY (chunk_id, stem)
    ) WITHOUT ROWID;
    CREATE INDEX woven_stem ON woven(stem);
    """,
    # 6: which version of each Meta page a unit was last done under (--since-policy)
    """
    CREATE TABLE unit_policy (
        stage TEXT NOT NULL,
        unit TEXT NOT NULL,
        page TEXT NOT NULL,               -- a Meta page the stage reads, e.g. Topics_to_Ignore
        checksum TEXT NOT NULL,           -- the page's checksum when the unit was last done
        PRIMARY KEY (stage, unit, page)
    ) WITHOUT ROWID;
    """,
    # 7: the read path's navigation index (dreaming.query), a cache of articles/ refreshed
    # per article before each query; FTS rows share their section's id as rowid
    """
    CREATE TABLE nav_articles (
        stem TEXT PRIMARY KEY,            -- the file name in articles/ without .md
        mtime_ns INTEGER NOT NULL,
        size INTEGER NOT NULL,
        checksum TEXT NOT NULL,
        unreadable TEXT,                  -- why the file is not indexed, else NULL
        title TEXT NOT NULL,
        kind TEXT,
        type TEXT,
        redirect TEXT,                    -- a redirect's target name, else NULL
        redirect_key TEXT                 -- its canonical key
    ) WITHOUT ROWID;
    CREATE INDEX nav_articles_kind ON nav_articles(kind);
    CREATE INDEX nav_articles_type ON nav_articles(type);
    CREATE INDEX nav_articles_redirect ON nav_articles(redirect_key);
    CREATE TABLE nav_names (
        name_key TEXT NOT NULL,           -- dreaming.subjects.names.canonical of the name
        stem TEXT NOT NULL REFERENCES nav_articles(stem) ON DELETE CASCADE,
        name TEXT NOT NULL,
        how TEXT NOT NULL,                -- title | stem | alias
        PRIMARY KEY (name_key, stem, how)
    ) WITHOUT ROWID;
    CREATE INDEX nav_names_stem ON nav_names(stem);
    CREATE TABLE nav_sections (
        id INTEGER PRIMARY KEY,           -- also the section's rowid in nav_fts
        stem TEXT NOT NULL REFERENCES nav_articles(stem) ON DELETE CASCADE,
        position INTEGER NOT NULL,        -- 0: the lead
        heading TEXT NOT NULL,
        level INTEGER NOT NULL,
        body TEXT NOT NULL,
        UNIQUE (stem, position)
    );
    CREATE TABLE nav_footnotes (
        stem TEXT NOT NULL REFERENCES nav_articles(stem) ON DELETE CASCADE,
        label TEXT NOT NULL,
        line TEXT NOT NULL,
        PRIMARY KEY (stem, label)
    ) WITHOUT ROWID;
    CREATE TABLE nav_facts (
        stem TEXT NOT NULL REFERENCES nav_articles(stem) ON DELETE CASCADE,
        position INTEGER NOT NULL,
        field TEXT NOT NULL,
        value TEXT NOT NULL,
        PRIMARY KEY (stem, position)
    ) WITHOUT ROWID;
    CREATE TABLE nav_categories (
        stem TEXT NOT NULL REFERENCES nav_articles(stem) ON DELETE CASCADE,
        category_key TEXT NOT NULL,
        name TEXT NOT NULL,
        PRIMARY KEY (stem, category_key)
    ) WITHOUT ROWID;
    CREATE INDEX nav_categories_key ON nav_categories(category_key);
    CREATE TABLE nav_links (
        src TEXT NOT NULL REFERENCES nav_articles(stem) ON DELETE CASCADE,
        target TEXT NOT NULL,             -- the linked name as written (spaces as _)
        target_key TEXT NOT NULL,         -- its canonical key: resolved when read
        via TEXT NOT NULL,                -- prose | infobox | seealso | series | main | redirect
        PRIMARY KEY (src, target_key, via)
    ) WITHOUT ROWID;
    CREATE INDEX nav_links_key ON nav_links(target_key);
    CREATE VIRTUAL TABLE nav_fts USING fts5(
        heading, title, aliases, body, tokenize = 'unicode61 remove_diacritics 2'
    );
    """,
    # 8: the history import's cursor (dreaming import): what was copied into Raw/, from where
    """
    CREATE TABLE imported (
        origin TEXT PRIMARY KEY,          -- a source file's path, chatgpt:<id> or export:<path>
        kind TEXT NOT NULL CHECK (kind IN ('file', 'conversation', 'export')),
        source TEXT NOT NULL,             -- the reader its copy needs, e.g. claude-code
        size INTEGER NOT NULL,            -- bytes when copied
        mtime_ns INTEGER NOT NULL,        -- the source's mtime when copied (0: a conversation)
        digest TEXT,                      -- sha256 of a conversation's bytes, else NULL
        target TEXT NOT NULL,             -- the vault-relative Raw/ copy ('' for an export)
        imported_at TEXT NOT NULL
    ) WITHOUT ROWID;
    CREATE INDEX imported_target ON imported(target);
    """,
    # 9: the write journal: files dreaming is writing and has not committed yet
    """
    CREATE TABLE write_journal (
        path TEXT NOT NULL,               -- vault-relative POSIX path
        sha256 TEXT NOT NULL,             -- of the exact bytes about to be written there
        run_id TEXT NOT NULL,             -- the run (or 'init') whose commit carries them
        written_at TEXT NOT NULL,
        PRIMARY KEY (path, sha256)
    ) WITHOUT ROWID;
    """,
    # 10: control characters removed from each Raw file's text at ingest
    """
    ALTER TABLE raw_files ADD COLUMN controls INTEGER NOT NULL DEFAULT 0;
    """,
    # 11: each night's pace, what `status` estimates the backlog from (NULL: not measured)
    """
    ALTER TABLE runs ADD COLUMN taken_conversations INTEGER;  -- taken out of the backlog
    ALTER TABLE runs ADD COLUMN taken_messages INTEGER;       -- the messages they hold
    ALTER TABLE runs ADD COLUMN model_seconds REAL;           -- summed model call durations
    ALTER TABLE runs ADD COLUMN stage_seconds REAL;           -- the stages' time on the clock
    ALTER TABLE runs ADD COLUMN calls INTEGER;                -- model calls made
    """,
    # 12: articles no edit can pass the write gate on, reported once for their bytes
    """
    CREATE TABLE stuck_articles (
        stem TEXT PRIMARY KEY,            -- the article
        checksum TEXT NOT NULL,           -- of the bytes found stuck
        reason TEXT NOT NULL,             -- what the run report told the person to fix
        run_id TEXT REFERENCES runs(id) ON DELETE SET NULL,  -- the run that reported it
        noted_at TEXT NOT NULL
    ) WITHOUT ROWID;
    CREATE INDEX stuck_articles_run ON stuck_articles(run_id);
    """,
)
