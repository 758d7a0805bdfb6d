# Helper used while collecting the corpus (not part of the tests): add.py REPO COMMIT PATH < text.json-string
import json, sys, os
repo, commit, path = sys.argv[1:4]
raw = sys.stdin.read().strip()
text = json.loads(raw)
name = repo.replace("/", "__") + "__claude_settings.json"
d = 'claude-code'
open(os.path.join(d, name), 'w').write(text)
with open('SOURCES', 'a') as f:
    f.write(f"claude-code/{name}\thttps://github.com/{repo}/blob/{commit}/{path}\n")
print(name, len(text))
