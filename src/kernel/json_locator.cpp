// A single pass over JSON text recording where each value and member name starts.
#include "kernel/json_locator.hpp"

#include <cctype>
#include <vector>

namespace ktune::kernel::detail {

std::string path_step(std::string_view key) {
    std::string out;
    for (char c : key) {
        if (c == '~')
            out += "~0";
        else if (c == '/')
            out += "~1";
        else
            out += c;
    }
    return out;
}

namespace {

class scanner {
public:
    scanner(std::string_view t, std::unordered_map<std::string, std::size_t>& values,
            std::unordered_map<std::string, std::size_t>& keys,
            std::pair<std::string, std::size_t>& duplicate)
        : s_(t), values_(values), keys_(keys), duplicate_(duplicate) {}

    void run() {
        skip();
        value("", 0);
    }

private:
    std::string_view s_;
    std::size_t i_ = 0;
    std::unordered_map<std::string, std::size_t>& values_;
    std::unordered_map<std::string, std::size_t>& keys_;
    std::pair<std::string, std::size_t>& duplicate_;

    void skip() {
        while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_])))
            ++i_;
    }
    bool ok() const { return i_ < s_.size(); }

    // A string starting at '"': its decoded text (escapes other than \" \\ \/ kept as written,
    // which only matters for member names that contain them).
    std::string string() {
        std::string out;
        ++i_;
        while (ok() && s_[i_] != '"') {
            if (s_[i_] == '\\' && i_ + 1 < s_.size()) {
                const char e = s_[i_ + 1];
                if (e == '"' || e == '\\' || e == '/')
                    out += e;
                else {
                    out += '\\';
                    out += e;
                }
                i_ += 2;
                continue;
            }
            out += s_[i_++];
        }
        ++i_; // closing quote
        return out;
    }

    void value(const std::string& path, int depth) {
        skip();
        if (!ok() || depth > 512) return; // the parser's own depth limit is far below this
        values_.emplace(path, i_);
        const char c = s_[i_];
        if (c == '{') {
            ++i_;
            for (;;) {
                skip();
                if (!ok()) return;
                if (s_[i_] == '}') {
                    ++i_;
                    return;
                }
                if (s_[i_] == ',') {
                    ++i_;
                    continue;
                }
                if (s_[i_] != '"') return;
                const std::size_t key_at = i_;
                const std::string child = path + "/" + path_step(string());
                if (!keys_.emplace(child, key_at).second && duplicate_.first.empty())
                    duplicate_ = {child, key_at};
                skip();
                if (!ok() || s_[i_] != ':') return;
                ++i_;
                value(child, depth + 1);
            }
        }
        if (c == '[') {
            ++i_;
            std::size_t n = 0;
            for (;;) {
                skip();
                if (!ok()) return;
                if (s_[i_] == ']') {
                    ++i_;
                    return;
                }
                if (s_[i_] == ',') {
                    ++i_;
                    continue;
                }
                const std::string child = path + "/" + std::to_string(n++);
                keys_.emplace(child, i_);
                const std::size_t before = i_;
                value(child, depth + 1);
                if (i_ == before) return; // no progress: malformed
            }
        }
        if (c == '"') {
            string();
            return;
        }
        while (ok() && s_[i_] != ',' && s_[i_] != '}' && s_[i_] != ']' &&
               !std::isspace(static_cast<unsigned char>(s_[i_])))
            ++i_;
    }
};

std::size_t lookup(const std::unordered_map<std::string, std::size_t>& m,
                   const std::unordered_map<std::string, std::size_t>& fallback, std::string path) {
    for (;;) {
        if (const auto it = m.find(path); it != m.end()) return it->second;
        if (const auto it = fallback.find(path); it != fallback.end()) return it->second;
        if (path.empty()) return 0;
        path.erase(path.rfind('/'));
    }
}

} // namespace

json_locator::json_locator(std::string_view text) {
    scanner(text, values_, keys_, duplicate_).run();
}

std::size_t json_locator::value_at(const std::string& path) const {
    return lookup(values_, keys_, path);
}

std::size_t json_locator::key_at(const std::string& path) const {
    return lookup(keys_, values_, path);
}

} // namespace ktune::kernel::detail
