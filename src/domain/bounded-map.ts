/**
 * A Map that forgets its oldest entry past a size limit. Used for per-process caches whose keys
 * name every input of the cached value (so an entry is never stale, only possibly evicted).
 */
export class BoundedMap<K, V> extends Map<K, V> {
  constructor(private readonly limit: number) {
    super();
  }

  override set(key: K, value: V): this {
    if (!this.has(key) && this.size >= this.limit) this.delete(this.keys().next().value as K);
    return super.set(key, value);
  }
}
