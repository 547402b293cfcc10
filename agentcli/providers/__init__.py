"""Model back ends behind one small Protocol (`providers.base.Provider`)."""
